/** localStorage access that never throws: storage can be disabled (privacy modes, full quota). */
export function store(key: string, value?: string): string | null {
  try {
    if (value === undefined) return localStorage.getItem(key);
    localStorage.setItem(key, value);
  } catch {
    // Without storage the snippet still works for this page view; the cookie carries the visitor.
  }
  return null;
}

/** The JSON stored under `key`, or `fallback` when absent or unreadable. */
export function readJson<T>(key: string, fallback: T): T {
  try {
    return (JSON.parse(store(key) || "null") as T) ?? fallback;
  } catch {
    return fallback;
  }
}
