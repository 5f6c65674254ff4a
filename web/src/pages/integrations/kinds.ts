/** The seven connector kinds, how each connects, and what its credentials form asks for. */
export interface Kind {
  type: string;
  label: string;
  /** Connects through the platform's consent screen. */
  oauth: boolean;
  /** Connects with a pasted credential instead of (or as well as) OAuth. */
  credential?: { field: "apiKey" | "accessToken"; label: string; hint: string };
}

export const KINDS: Kind[] = [
  { type: "search_ads", label: "Search ads", oauth: true },
  { type: "web_analytics", label: "Web analytics", oauth: true },
  {
    type: "crm",
    label: "CRM",
    oauth: true,
    credential: {
      field: "accessToken",
      label: "Private app token",
      hint: "Or paste a private app access token instead of signing in.",
    },
  },
  {
    type: "payments",
    label: "Payments",
    oauth: false,
    credential: {
      field: "apiKey",
      label: "Restricted API key",
      hint: "A read-only restricted key is enough.",
    },
  },
  { type: "social_ads", label: "Social ads", oauth: true },
  { type: "professional_network_ads", label: "Professional network ads", oauth: true },
  { type: "accounting", label: "Accounting", oauth: true },
];

export const kindLabel = (type: string) =>
  KINDS.find((k) => k.type === type)?.label ?? type.replaceAll("_", " ");

/** Timestamps as "YYYY-MM-DD HH:MM" (UTC), or a word when there is none. */
export const when = (iso: string | null | undefined, none = "never") =>
  iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : none;
