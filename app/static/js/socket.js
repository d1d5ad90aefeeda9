// One table socket: hello, state frames, actions with ids, pings, reconnect with backoff.

import { protocol } from "./protocol.js";

// Silence: a socket that stays open while nothing comes through (the server, or a node or
// proxy on the way, paused or cut off) could keep the browser waiting minutes for a close.
// So the client pings every PING_EVERY, and gives up a socket that has not answered a ping
// within ANSWER_WAIT, or sent its welcome within OPEN_WAIT of connecting: it is dropped and
// another opened, which a load balancer may send elsewhere (docs/protocol.md, "ping /
// pong"). Only an unanswered message counts: a background tab whose timers the browser
// slows down pings less often, and is not taken for a silent server.
const PING_EVERY = 3000;
const ANSWER_WAIT = 3000;
const OPEN_WAIT = 6000;
const BEAT = 1000; // how often the socket's silence is looked at
const BACKOFF = [500, 1000, 2000, 4000, 8000, 10000];
const MOVING_RETRY = 1000;

export class TableSocket {
  /** handlers: onFrame(msg), onStatus("connecting"|"connected"|"offline"|"moving"),
   *  onError(msg, resent), onClosed(code) for closes that end the session,
   *  onClock(offset): the server's clock minus the browser's, in ms (from a ping). */
  constructor(tableId, token, handlers) {
    this.tableId = tableId;
    this.token = token;
    this.handlers = handlers;
    this.attempt = 0;
    this.pending = null; // {id, version, action}: sent, not yet answered
    this.counter = 0;
    this.stopped = false;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/api/tables/${this.tableId}/ws`);
    this.ws = ws;
    this.answerBy = performance.now() + OPEN_WAIT; // the welcome
    clearInterval(this.pinger);
    this.pinger = setInterval(() => this.beat(ws), BEAT);
    this.handlers.onStatus(this.attempt ? "offline" : "connecting");
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", protocol: protocol.version, token: this.token }));
      const sent = this.pending;
      if (sent) { // answered again if it was done; the same id, so never done twice
        this.raw({ type: "action", id: sent.id, version: sent.version, action: sent.action });
        this.pending = { ...sent, resent: true };
      }
    };
    ws.onmessage = (message) => {
      this.answerBy = null;
      this.receive(JSON.parse(message.data));
    };
    ws.onclose = (close) => this.closed(ws, close.code);
  }

  /** Every BEAT: give `ws` up if it left a message unanswered too long, else ping it
   *  every PING_EVERY. */
  beat(ws) {
    if (ws !== this.ws) return;
    const now = performance.now();
    if (this.answerBy !== null) {
      if (now > this.answerBy) this.silent(ws);
    } else if (now - this.pingedAt >= PING_EVERY) {
      this.ping();
    }
  }

  /** Drop a silent `ws` without waiting for its close (a stuck peer never answers one;
   *  the browser would wait a minute) and reconnect, as after a lost connection. */
  silent(ws) {
    ws.onmessage = null;
    ws.onclose = null;
    ws.close();
    this.closed(ws, null);
  }

  receive(msg) {
    switch (msg.type) {
      case "welcome":
        this.attempt = 0;
        this.handlers.onStatus("connected");
        this.ping(); // at once: the pong sets the clock
        break;
      case "pong":
        // The server's time sits halfway through the round trip of our ping.
        if (typeof msg.time === "number" && this.pingSent) {
          this.handlers.onClock(msg.time - (this.pingSent + Date.now()) / 2);
          this.pingSent = null;
        }
        break;
      case "snapshot":
      case "event":
        this.handlers.onFrame(msg);
        break;
      case "ack":
        if (this.pending && this.pending.id === msg.id) this.pending = null;
        break;
      case "error": {
        const resent = Boolean(this.pending && this.pending.id === msg.id && this.pending.resent);
        if (this.pending && this.pending.id === msg.id) this.pending = null;
        this.handlers.onError(msg, resent);
        break;
      }
      case "ping":
        this.raw({ type: "pong" });
        break;
      default:
        break;
    }
  }

  closed(ws, code) {
    if (ws !== this.ws) return;
    clearInterval(this.pinger);
    if (this.stopped) return;
    if (protocol.final_close_codes.includes(code)) { // reconnecting would not help
      this.handlers.onStatus("closed");
      this.handlers.onClosed(code);
      return;
    }
    // A restart, or a cluster moving the table (RESTART, TRY_AGAIN), is over in seconds: come
    // back every second meanwhile rather than backing off as from a lost network.
    const moving = [protocol.close_codes.RESTART, protocol.close_codes.TRY_AGAIN].includes(code);
    this.handlers.onStatus(moving ? "moving" : "offline");
    const delay = moving ? MOVING_RETRY : BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    this.attempt += 1;
    this.retry = setTimeout(() => this.connect(), delay * (0.8 + 0.4 * Math.random()));
  }

  ping() {
    if (!this.raw({ type: "ping", id: "p" })) return;
    this.pingSent = Date.now();
    this.pingedAt = performance.now();
    this.answerBy = this.pingedAt + ANSWER_WAIT;
  }

  raw(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Propose `action` against the state of `version`; one action in flight at a time. */
  act(action, version) {
    if (this.pending) return false;
    this.counter += 1;
    this.pending = { id: `a${Date.now().toString(36)}-${this.counter}`, version, action };
    this.raw({ type: "action", id: this.pending.id, version, action });
    return true;
  }

  resume() {
    this.raw({ type: "resume" });
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(protocol.close_codes.NORMAL);
  }
}
