// Translations: flat JSON files per language and namespace, merged (one namespace per part
// of the client, so its strings can change without touching the others).

export const LANGUAGES = ["en", "bg", "fr", "de", "es", "el", "ko"];
const NAMESPACES = ["core", "history", "chat", "help", "play", "account", "analysis", "sheets",
  "competition", "community"];
const STORAGE_KEY = "belote.lang";

let current = "en";
let strings = {};
let fallback = {};
const listeners = new Set();

/** Fetch and merge every namespace of `lang`; a missing file only loses its strings. */
export async function loadLanguage(lang) {
  const parts = await Promise.all(NAMESPACES.map(async (ns) => {
    try {
      const response = await fetch(`/i18n/${lang}/${ns}.json`);
      return response.ok ? await response.json() : {};
    } catch {
      return {};
    }
  }));
  return Object.assign({}, ...parts);
}

/** The language to start with: the stored choice, else the browser's, else English. */
export function preferredLanguage() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (!Object.keys(fallback).length) fallback = await loadLanguage("en");
  strings = lang === "en" ? fallback : await loadLanguage(lang);
  current = lang;
  localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  for (const fn of listeners) fn(lang);
}

export function language() {
  return current;
}

/** The text of `key` with `{param}` replaced; English if missing, the key if nowhere. */
export function t(key, params = {}) {
  const text = strings[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all));
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
