// Accounts in the client (docs/accounts.md): the log-in and sign-up page (#/login,
// #/signup), the header's account menu (profile, change password, log out), and the offer
// a guest gets now and then to keep their history by creating an account.

import { enter, guest, isAccount, logOut, api } from "./api.js";
import { h, fill, icon } from "./dom.js";
import { t } from "./i18n.js";
import { errorText, fieldReasons, notify } from "./toasts.js";

const OFFER_KEY = "belote.keepOffer"; // {seen: [finished tables], dismissed: how many were seen then}
const OFFER_EVERY = 3; // a dismissed offer comes back after this many more finished matches
const SEEN_KEPT = 20;

/** A password field with its show/hide button; `autocomplete` tells password managers
 *  whether it is the current password or a new one. */
function passwordField(name, label, autocomplete) {
  const input = h("input", { type: "password", name, autocomplete, required: true, maxlength: 256,
    minlength: autocomplete === "new-password" ? 8 : null, "data-testid": `${name}-input` });
  const toggle = h("button.btn.ghost.reveal", { type: "button", "data-testid": `${name}-reveal`,
    "aria-pressed": "false", onclick: () => {
      const shown = input.type === "password";
      input.type = shown ? "text" : "password";
      toggle.setAttribute("aria-pressed", String(shown));
      toggle.textContent = t(shown ? "account.hide" : "account.show");
    } }, t("account.show"));
  return h("label.field", {}, h("span", {}, label), h("span.password-row", {}, input, toggle));
}

/** A refusal in the player's words: each refused field's reason once (a bad username and
 *  a short password together), `Retry-After` for too many attempts; `own` words for some
 *  codes in this form. */
function refusal(error, own) {
  if (own[error.code]) return own[error.code];
  if (error.code === "too_many_attempts") {
    return t("account.retry_in", { minutes: error.retryMinutes });
  }
  const reasons = fieldReasons(error.fields);
  return reasons.length ? reasons.join(" ") : errorText(error.code, error.message);
}

/** A form that sends `submit(form)` once at a time, says a refusal under its fields (in
 *  `own` words for some codes) and calls `done()` after a success. */
function accountForm(attrs, fields, button, submit, done, own = {}) {
  const error = h("p.form-error", { role: "alert", "data-testid": "account-error", hidden: true });
  const send = h("button.btn.primary.big", { type: "submit", "data-testid": "account-submit" }, button);
  const form = h("form.account-form", { ...attrs, onsubmit: async (event) => {
    event.preventDefault();
    if (send.disabled) return;
    send.disabled = true;
    error.hidden = true;
    try {
      await submit(form);
      done();
    } catch (exc) {
      error.textContent = refusal(exc, own);
      error.hidden = false;
    } finally {
      send.disabled = false;
    }
  } }, fields, error, send);
  return form;
}

/** #/login and #/signup: one card, two tabs. A guest who signs up keeps their id, and so
 *  every match they played. */
export function renderAccount(root, ctx, mode) {
  const signup = mode === "signup";
  const me = guest();
  if (me && me.account) { // already in: nothing to do here
    ctx.navigate("#/");
    return undefined;
  }
  const tab = (which, label) => h(`a.tab${which === mode ? ".active" : ""}`, {
    href: `#/${which}`, role: "tab", "aria-selected": String(which === mode), "data-testid": `tab-${which}`,
  }, label);
  const username = h("input", { type: "text", name: "username", autocomplete: "username", required: true,
    minlength: signup ? 3 : 1, maxlength: signup ? 24 : 64, autocapitalize: "none", spellcheck: "false",
    "data-testid": "username-input", value: signup && me ? me.name.replace(/[^A-Za-z0-9_-]/g, "") : "" });
  const form = accountForm({ "data-testid": `${mode}-form` }, [
    h("label.field", {}, h("span", {}, t("account.username")), username,
      signup ? h("span.hint", {}, t("account.username_rule")) : null),
    passwordField("password", t("account.password"), signup ? "new-password" : "current-password"),
    signup ? h("span.hint", {}, t("account.password_rule")) : null,
  ], t(signup ? "account.create" : "account.log_in"),
  (el) => enter(mode, el.elements.username.value.trim(), el.elements.password.value),
  () => {
    ctx.refreshHeader();
    notify(t(signup ? "account.created" : "account.logged_in", { name: guest().name }));
    ctx.afterSignIn();
  });
  const intro = signup
    ? t(me ? "account.signup_keeps" : "account.signup_intro", { name: me ? me.name : "" })
    : t("account.login_intro");
  fill(root, h("section#account.account-page", {},
    h("div.card.account-card", {},
      h("div.tabs", { role: "tablist" }, tab("login", t("account.log_in")), tab("signup", t("account.sign_up"))),
      h("p.muted", {}, intro),
      form,
      me ? null : h("p.account-guest", {}, t("account.or"), " ",
        h("a", { href: "#/", "data-testid": "play-as-guest" }, t("account.play_as_guest"))))));
  username.focus();
  return undefined;
}

/** A head and shoulders, drawn: the log-in link's mark on a phone. */
function personIcon() {
  return icon("person-icon", '<circle cx="12" cy="8" r="4.5" fill="currentColor"/>'
    + '<path d="M3.5 21a8.5 8.5 0 0 1 17 0z" fill="currentColor"/>');
}

/** The header's account corner: "Log in" when nobody is, else the player's name opening
 *  a menu (a guest: create an account to keep the history, or log in; an account: its
 *  profile, a new password, log out). */
export function accountMenu(ctx, toggle, menu) {
  const me = guest();
  toggle.hidden = !me;
  if (!me) {
    fill(toggle);
    menu.classList.remove("open");
    return h("a.btn.ghost.login-link", { href: "#/login", "data-testid": "nav-login", "aria-label": t("account.log_in") },
      personIcon(), h("span.login-text", {}, t("account.log_in")));
  }
  fill(toggle, h("span.me-initial", { "aria-hidden": "true" }, me.name.slice(0, 1).toUpperCase()), h("span.me-name", {}, me.name),
    h("span.me-kind", {}, me.account ? "" : t("account.guest")), h("span", { "aria-hidden": "true" }, "▾"));
  toggle.setAttribute("aria-label", t("account.menu", { name: me.name }));
  const item = (attrs, text) => h("li", {}, h(attrs.href ? "a.menu-item" : "button.menu-item",
    attrs.href ? attrs : { type: "button", ...attrs }, text));
  fill(menu, h("ul", {}, me.account ? [
    item({ href: `#/players/${encodeURIComponent(me.id)}`, "data-testid": "menu-profile" }, t("account.profile")),
    item({ href: "#/friends", "data-testid": "menu-friends" }, t("community.friends")),
    item({ href: "#/watch", "data-testid": "menu-watch" }, t("community.watch_title")),
    item({ href: "#/problems", "data-testid": "menu-problems" }, t("problems.nav")),
    item({ onclick: () => changePassword(ctx), "data-testid": "menu-password" }, t("account.change_password")),
    item({ onclick: () => logOut().catch(ctx.toast), "data-testid": "menu-logout" }, t("account.log_out")),
  ] : [
    item({ href: "#/signup", "data-testid": "menu-signup" }, t("account.keep_history")),
    item({ href: "#/login", "data-testid": "menu-login" }, t("account.log_in")),
    item({ href: "#/watch", "data-testid": "menu-watch" }, t("community.watch_title")),
    item({ href: "#/problems", "data-testid": "menu-problems" }, t("problems.nav")),
  ]));
  return null;
}

/** The small dialog to change the password; the other sessions end, this one goes on. */
function changePassword(ctx) {
  const dialog = h("dialog.dialog.password-dialog", { "data-testid": "password-dialog",
    onclose: () => dialog.remove() });
  const form = accountForm({}, [
    passwordField("old", t("account.old_password"), "current-password"),
    passwordField("new", t("account.new_password"), "new-password"),
    h("span.hint", {}, t("account.password_rule")),
  ], t("account.change_password"),
  (el) => api("PUT", "/api/me/password", { old: el.elements.old.value, new: el.elements.new.value }),
  () => {
    dialog.close();
    notify(t("account.password_changed"));
  }, { bad_credentials: t("account.wrong_old_password") });
  fill(dialog, h("div.dialog-head", {}, h("h2", {}, t("account.change_password")),
    h("button.btn.ghost.close", { type: "button", "aria-label": t("common.close"), onclick: () => dialog.close() }, "✕")),
  form);
  document.body.append(dialog);
  dialog.showModal();
}

function offerState() {
  try {
    const stored = JSON.parse(localStorage.getItem(OFFER_KEY));
    if (stored && Array.isArray(stored.seen)) return stored;
  } catch {
    // a damaged entry: start again
  }
  return { seen: [], count: 0, dismissed: null };
}

/** For a guest at the end of a match (`tableId`): the offer to keep their history by
 *  creating an account; after a dismissal it comes back only every few matches. */
export function keepHistoryOffer(tableId) {
  if (!guest() || isAccount()) return null;
  const state = offerState();
  if (!state.seen.includes(tableId)) {
    state.seen = [...state.seen, tableId].slice(-SEEN_KEPT);
    state.count += 1;
    localStorage.setItem(OFFER_KEY, JSON.stringify(state));
  }
  if (state.dismissed !== null && state.count - state.dismissed < OFFER_EVERY) return null;
  const offer = h("div.keep-offer", { role: "note", "data-testid": "keep-offer" },
    h("p", {}, t("account.offer")),
    h("a.btn.primary", { href: "#/signup", "data-testid": "keep-offer-signup" }, t("account.sign_up")),
    h("button.btn.ghost", { type: "button", "data-testid": "keep-offer-dismiss", onclick: () => {
      localStorage.setItem(OFFER_KEY, JSON.stringify({ ...offerState(), dismissed: offerState().count }));
      offer.remove();
    } }, t("account.not_now")));
  return offer;
}
