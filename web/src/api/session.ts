import { useQuery } from "@tanstack/react-query";
import { api, call } from "./client";

/** The signed-in user and workspace; a 401 error means signed out. */
export function useMe() {
  return useQuery({ queryKey: ["me"], queryFn: () => call(api.GET("/api/auth/me")), staleTime: 60_000 });
}

/** The workspace's projects: admins only (members get 403 and no switcher). */
export function useProjects(enabled: boolean) {
  return useQuery({ queryKey: ["projects"], queryFn: () => call(api.GET("/api/projects")), enabled });
}
