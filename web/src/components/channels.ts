/**
 * The one label of each channel the API names (`organic_search` → "Organic search"), wherever a
 * channel is shown: tables, filter chips, pickers, journeys. The API's own value stays the key
 * (filters and links send it unchanged). The rules' channels are DESIGN.md's, plus `unattributed`.
 */
const LABELS: Record<string, string> = {
  direct: "Direct",
  organic_search: "Organic search",
  paid_search: "Paid search",
  organic_social: "Organic social",
  paid_social: "Paid social",
  email: "Email",
  referral: "Referral",
  display: "Display",
  affiliate: "Affiliate",
  ai_assistant: "AI assistant",
  unattributed: "Unattributed",
};

/** A channel's label; a channel this map does not know reads as its words ("new_thing" → "New thing"). */
export function channelLabel(channel: string): string {
  const known = LABELS[channel];
  if (known) return known;
  const words = channel.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Label of a value of a filter key: channels get theirs, other values stay as they are. */
export const valueLabel = (key: string, value: string) => (key === "channel" ? channelLabel(value) : value);
