const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/**
 * An answer's age in words ("just now", "3 minutes ago", "2 hours ago"): the dashboard's results
 * are kept, so how old they are matters more than the moment. Under 45 s, and a clock slightly
 * behind the server's, is "just now".
 */
export function computedAgo(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (seconds > -45) return "just now";
  const minutes = Math.min(-1, Math.round(seconds / 60));
  if (minutes > -60) return relative.format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (hours > -24) return relative.format(hours, "hour");
  return relative.format(Math.round(hours / 24), "day");
}
