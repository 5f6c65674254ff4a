/** The visitors area's query keys: leads (searched, or one), a visitor's journey, the live events. */
export const visitorKeys = {
  leads: (q: string, filter: string | undefined) => ["leads", q, filter] as const,
  lead: (id: string) => ["leads", "one", id] as const,
  journey: (visitorId: string) => ["journey", visitorId] as const,
  recentEvents: ["events", "recent"] as const,
};
