/** One attribution summary per model: the detail table and the comparison share the answers. */
export const attributionKeys = {
  summary: (model: string, period: string, filter: string | undefined, goal?: string, by = "channel") =>
    ["attribution", model, period, filter, goal, by] as const,
};
