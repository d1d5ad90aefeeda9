// REST calls with the guest's token; errors become ApiError with the server's code.

const GUEST_KEY = "belote.guest";

export class ApiError extends Error {
  /** `fields`: for a request that did not validate, `[{field, code, message}]`. */
  constructor(status, code, message, fields = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

/** The stored guest `{id, name, token}`, or null. */
export function guest() {
  try {
    const stored = JSON.parse(localStorage.getItem(GUEST_KEY));
    return stored && stored.token ? stored : null;
  } catch {
    return null;
  }
}

export const GUEST_FORGOTTEN = "belote:guest-forgotten";

/** Drop the stored guest (its token was refused); the app re-renders on the event. */
export function forgetGuest() {
  if (localStorage.getItem(GUEST_KEY) === null) return; // nothing to forget: no re-render loop
  localStorage.removeItem(GUEST_KEY);
  window.dispatchEvent(new Event(GUEST_FORGOTTEN));
}

/** Make a guest identity (a new name makes a new guest: names are part of the token). */
export async function createGuest(name) {
  const created = await api("POST", "/api/guests", { name });
  localStorage.setItem(GUEST_KEY, JSON.stringify(created));
  return created;
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const me = guest();
  if (me) headers.Authorization = `Bearer ${me.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (exc) {
    throw new ApiError(0, "network", String(exc));
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    // Every error of the server is {"detail": {code, message, fields?}} (docs/protocol.md);
    // a body without it (a proxy's error page) is told by its status alone.
    const detail = (data && data.detail) || {};
    if (response.status === 401) forgetGuest();
    throw new ApiError(response.status, detail.code || "http",
      detail.message || `${response.status} ${response.statusText}`, detail.fields);
  }
  return data;
}
