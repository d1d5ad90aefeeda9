// Before the start: take a seat, bots in empty seats, the shareable link, start.

import { api, guest, isAccount } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { houseRulesLine } from "./house-rules.js";
import { seatName } from "./labels.js";
import { protocol } from "./protocol.js";
import { foundByQueue } from "./quickplay.js";
import { ratingMark } from "./rating.js";
import { muteAtTable, playerMenu } from "./community.js";

// The bot level last picked: the panel is drawn anew with every change of the table, and
// a level chosen for the empty seats must not fall back to the default meanwhile.
let pickedLevel = null;

function levelSelect(testid) {
  const { values, default: preset } = protocol.levels;
  const chosen = values.includes(pickedLevel) ? pickedLevel : preset;
  return h("select", { "data-testid": testid, "aria-label": t("setup.bot_level"),
                       onchange: (event) => { pickedLevel = event.target.value; } },
    values.map((level) => h("option", { value: level, selected: level === chosen }, t(`level.${level}`))));
}

/** The waiting-room panel; `act(promiseFn)` runs a REST call and reports its error;
 *  `busy` while one runs (its buttons are then disabled). */
export function setupPanel(frame, act, busy = false) {
  const { table } = frame;
  const id = table.id;
  const mine = frame.seat;
  const filled = table.seats.every((s) => s.kind !== "empty");
  const me = guest();
  const creator = Boolean(me) && me.id === table.owner; // bots and the start are theirs
  // The queue's table starts by itself once its players are there (its creator may
  // still start it sooner).
  const starting = filled && foundByQueue(id);
  const link = `${location.origin}${location.pathname}#/t/${id}`;
  const slot = (seat) => {
    const held = table.seats[seat];
    const level = levelSelect("bot-level");
    const controls = [];
    if (held.kind === "empty") {
      if ((mine === null || mine === undefined) && table.rated && !isAccount()) { // accounts only
        controls.push(h("a.btn", { href: "#/login", "data-testid": "sit-log-in" }, t("rated.accounts_only")));
      } else if (mine === null || mine === undefined) {
        controls.push(h("button.btn.primary", { type: "button", "data-testid": "sit", disabled: busy,
          onclick: () => act(() => api("PUT", `/api/tables/${id}/seats/${seat}`)) }, t("setup.sit")));
      }
      if (creator) {
        controls.push(level, h("button.btn", { type: "button", "data-testid": "add-bot", disabled: busy,
          onclick: () => act(() => api("PUT", `/api/tables/${id}/seats/${seat}/bot`, { level: level.value })) },
        t("setup.add_bot")));
      }
    } else if (held.kind === "bot" && creator) {
      controls.push(h("button.btn.ghost", { type: "button", "data-testid": "remove-bot", disabled: busy,
        onclick: () => act(() => api("DELETE", `/api/tables/${id}/seats/${seat}/bot`)) }, t("setup.remove_bot")));
    } else if (seat === mine) {
      controls.push(h("button.btn.ghost", { type: "button", "data-testid": "leave", disabled: busy,
        onclick: () => act(() => api("DELETE", `/api/tables/${id}/seats/${seat}`)) }, t("setup.leave")));
    } else if (held.kind === "human") { // another player: its menu (friend, mute, block, report)
      controls.push(playerMenu({ id: held.player, name: held.name },
        { mute: muteAtTable, match: id }));
    }
    return h(`li.slot.${held.kind}${seat === mine ? ".mine" : ""}`, { "data-seat-slot": seat },
      h("span.slot-team", {}, t(seat % 2 ? "setup.team_b" : "setup.team_a")),
      h("span.slot-name", {}, held.kind === "empty" ? t("seat.empty") : seatName(table, seat),
        seat === mine ? h("span.you", {}, ` (${t("setup.you")})`) : null,
        held.kind === "human" && !held.account ? h("span.muted.guest-mark", {}, ` · ${t("account.guest")}`) : null,
        ratingMark(held.rating, "span.rating.slot-rating")),
      h("span.slot-controls", {}, controls));
  };
  const fillLevel = levelSelect("fill-level");
  const fill = async () => {
    for (const [seat, held] of table.seats.entries()) {
      if (held.kind === "empty") await api("PUT", `/api/tables/${id}/seats/${seat}/bot`, { level: fillLevel.value });
    }
  };
  const copy = async (event) => {
    try {
      await navigator.clipboard.writeText(link);
      event.target.textContent = t("setup.copied");
    } catch {
      event.target.closest(".share").querySelector("input").select();
    }
  };
  return h("div.setup.panel", {},
    h("h2", {}, t(starting ? "quick.found" : "setup.title")),
    h("p.muted", {}, t(starting ? "quick.starts_soon" : creator ? "setup.hint" : "setup.hint_guest")),
    houseRulesLine(table.variant, table.options),
    table.rated ? h("p.rated-note", {}, h("span.tag.rated-tag", {}, t("rated.label")), " ", t("rated.hint")) : null,
    h("ol.slots", {}, [0, 1, 2, 3].map(slot)),
    creator && !starting ? h("div.row.fill", {},
      h("label.fill-level", {}, h("span", {}, t("setup.bot_level")), fillLevel),
      h("button.btn", { type: "button", "data-testid": "fill-bots", disabled: filled || busy, onclick: () => act(fill) },
        t("setup.fill_bots"))) : null,
    starting ? null : h("div.row.share", {}, h("input", { readonly: true, value: link, "aria-label": t("setup.share") }),
      h("button.btn.ghost", { type: "button", onclick: copy }, t("setup.copy"))),
    creator
      ? h("button.btn.primary.big.start", { type: "button", "data-testid": "start", disabled: !filled || busy,
        onclick: () => act(() => api("POST", `/api/tables/${id}/start`)) }, t("setup.start"))
      : starting ? null : h("p.creator-starts", { "data-testid": "creator-starts" }, t("setup.creator_starts")));
}
