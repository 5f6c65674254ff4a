import { useQuery } from "@tanstack/react-query";
import { api, call } from "./client";

/**
 * The session's query keys. These two outlive a project switch (ProjectSwitcher resets the rest);
 * a 401 anywhere invalidates `me`, which then shows the sign-in page.
 */
export const sessionKeys = { me: ["me"] as const, projects: ["projects"] as const };

/** The signed-in user and workspace; a 401 error means signed out. */
export function useMe() {
  return useQuery({
    queryKey: sessionKeys.me,
    queryFn: () => call(api.GET("/api/auth/me")),
    staleTime: 60_000,
  });
}

/** The workspace's projects: admins only (members get 403 and no switcher). */
export function useProjects(enabled: boolean) {
  return useQuery({ queryKey: sessionKeys.projects, queryFn: () => call(api.GET("/api/projects")), enabled });
}
