import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId } from "react";
import { rememberProjectId, useProjectId } from "../api/project";
import { sessionKeys, useProjects } from "../api/session";

/** Queries about the current project (all but who is signed in and the project list). */
const isProjectData = (q: { queryKey: readonly unknown[] }) =>
  q.queryKey[0] !== sessionKeys.me[0] && q.queryKey[0] !== sessionKeys.projects[0];

/**
 * Which project every page shows (`x-project-id`). Listing projects is for admins; a member works
 * in the workspace's first project and sees no switcher.
 */
export function ProjectSwitcher({ isAdmin }: { isAdmin: boolean }) {
  const id = useId();
  const queryClient = useQueryClient();
  const projects = useProjects(isAdmin);
  const remembered = useProjectId();
  const list = projects.data ?? [];
  // Newest first: with no choice remembered (or a deleted one), the oldest is the API's default.
  const selected = list.find((p) => p.id === remembered) ?? list[list.length - 1];

  useEffect(() => {
    if (!selected || selected.id === remembered) return;
    rememberProjectId(selected.id);
    // A remembered project that no longer exists: what loaded meanwhile was a 404.
    if (remembered !== null) void queryClient.resetQueries({ predicate: isProjectData });
  }, [selected, remembered, queryClient]);

  if (!isAdmin || list.length === 0) return null;
  return (
    <div className="switcher">
      <label htmlFor={id}>Project</label>
      <select
        id={id}
        value={selected?.id}
        onChange={(e) => {
          rememberProjectId(e.target.value);
          // Everything on screen belonged to the other project.
          void queryClient.resetQueries({ predicate: isProjectData });
        }}
      >
        {list.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}
