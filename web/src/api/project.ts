import { useSyncExternalStore } from "react";

/** The project the dashboard acts on: sent as `x-project-id` with every request, remembered. */
const KEY = "lift.projectId";

function read(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: the choice lasts until reload
  }
}

let current: string | null = read();
const listeners = new Set<() => void>();

export const currentProjectId = (): string | null => current;

export function rememberProjectId(id: string | null): void {
  if (id === current) return;
  current = id;
  try {
    if (id) localStorage.setItem(KEY, id);
    else localStorage.removeItem(KEY);
  } catch {
    // see read()
  }
  for (const l of listeners) l();
}

/** The remembered project id, re-rendering when it changes. */
export function useProjectId(): string | null {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, currentProjectId);
}
