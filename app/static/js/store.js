// The table's state: the latest snapshot/event frame from the server, and nothing more.
// Views subscribe and render from it; local UI state (focus, open dialogs) lives in views.

export function createStore() {
  let frame = null;
  let connection = "connecting";
  const listeners = new Set();
  const notify = (change) => { for (const fn of listeners) fn(change); };
  return {
    get frame() { return frame; },
    get connection() { return connection; },
    /** A snapshot replaces everything; an event too (it carries the whole state). */
    receive(message) {
      const previous = frame;
      frame = message;
      notify({ kind: "frame", previous, frame });
    },
    setConnection(status) {
      connection = status;
      notify({ kind: "connection", frame });
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
