/** The overview's own query key (its reports' keys are the shared analyticsKeys). */
export const overviewKeys = {
  /** Whether the project has had events yet: the first-run card polls it. */
  eventStatus: ["events", "status"] as const,
};
