import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { sessionKeys } from "../../api/session";

/**
 * The settings area's query keys. A project's keys sit under the session's `projects`, so
 * changing projects refreshes them, and switching projects keeps them (see ProjectSwitcher).
 */
export const settingsKeys = {
  workspace: ["workspace"] as const,
  users: ["users"] as const,
  invites: ["invites"] as const,
  erasures: ["erasures"] as const,
  projectKeys: (projectId: string) => [...sessionKeys.projects, projectId, "keys"] as const,
};

export const useWorkspace = () =>
  useQuery({ queryKey: settingsKeys.workspace, queryFn: () => call(api.GET("/api/workspace")) });
export const useUsers = () =>
  useQuery({ queryKey: settingsKeys.users, queryFn: () => call(api.GET("/api/workspace/users")) });
export const useInvites = () =>
  useQuery({ queryKey: settingsKeys.invites, queryFn: () => call(api.GET("/api/workspace/invites")) });
