/**
 * The tag that installs Lift's snippet on a site, with the project's public key (safe in pages).
 * One definition for every place that shows it (Settings, the first run, Connect).
 */
export const liftSnippet = (host: string, publicKey: string): string =>
  `<script src="${host}/api/svc-js?key=${publicKey}"></script>`;

/**
 * Where SDKs reach this server: the origin the dashboard is served from, which is the API's (the
 * dashboard is served by the API itself).
 */
export const serverHost = (): string => window.location.origin;
