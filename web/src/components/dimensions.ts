/** The dimensions the API groups by (breakdowns; funnels take all but the event type). */
export const DIMENSIONS = [
  { value: "channel", label: "Channel" },
  { value: "source", label: "Source" },
  { value: "campaign", label: "Campaign" },
  { value: "landing_page", label: "Landing page" },
  { value: "referrer_domain", label: "Referrer domain" },
  { value: "device", label: "Device" },
  { value: "browser", label: "Browser" },
  { value: "os", label: "Operating system" },
  { value: "event_type", label: "Event type" },
] as const;
export type Dimension = (typeof DIMENSIONS)[number]["value"];

/** A funnel is broken down by the values of the session a person entered in. */
export const FUNNEL_DIMENSIONS = DIMENSIONS.filter(
  (d): d is Exclude<(typeof DIMENSIONS)[number], { value: "event_type" }> => d.value !== "event_type",
);
export type FunnelDimension = (typeof FUNNEL_DIMENSIONS)[number]["value"];
