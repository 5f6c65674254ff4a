/**
 * Every kind of key and token Lift issues, told apart by its prefix. This is the one place a
 * prefix is written or tested: the guards, the public endpoints' batch limits, log redaction and
 * the modules that mint keys all read it from here.
 */
export const KEY_PREFIX = {
  /** a project's public key, in every page of its site: anyone may read it */
  public: "svc_pk_",
  /** a project's secret API key (the spec's project key): a server's */
  secret: "svc_key_",
  /** a workspace's transactional email key */
  transactional: "svc_tx_",
  /** a dashboard's public link */
  share: "svc_share_",
  /** an invitation to a workspace */
  invitation: "svc_inv_",
  /** a webhook's signing secret in Standard Webhooks' form */
  webhookSecret: "whsec_",
} as const;

export type PrefixedKind = keyof typeof KEY_PREFIX;

/** Whether `token` is of `kind` by its prefix (a lookup still decides whether it exists). */
export const isKeyOf = (kind: PrefixedKind, token: string): boolean => token.startsWith(KEY_PREFIX[kind]);

/**
 * What kind of caller a principal is, which the rules judge by: a page's `public` key (anyone's:
 * its events only fill a lead's missing properties, its budgets are per address), a `secret`
 * project key (a server), a signed-in `session`, or a `transactional` key.
 */
export type KeyKind = "public" | "secret" | "session" | "transactional";

/** The two kinds of project key a public endpoint accepts. */
export type ProjectKeyKind = Extract<KeyKind, "public" | "secret">;

/** A project key's kind: a secret key by its prefix; any other key a caller sends is a page's public key. */
export const projectKeyKind = (key: string): ProjectKeyKind => (isKeyOf("secret", key) ? "secret" : "public");

/** The prefixes of values that never reach a log line (a public key is in every page: not a secret). */
export const SECRET_PREFIXES: readonly string[] = [
  KEY_PREFIX.secret,
  KEY_PREFIX.transactional,
  KEY_PREFIX.webhookSecret,
  KEY_PREFIX.share,
  KEY_PREFIX.invitation,
];

/** No key Lift issues is longer: a longer one is unknown without a lookup. */
export const MAX_KEY_LENGTH = 200;
