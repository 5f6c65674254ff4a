/** One attribution summary per model: the detail table and the comparison share the answers. */
export const attributionKeys = {
  summary: (model: string, period: string, filter: string | undefined) =>
    ["attribution", model, period, filter] as const,
};
