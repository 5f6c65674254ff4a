import createClient, { type Middleware } from "openapi-fetch";
import { currentProjectId } from "./project";
import type { paths } from "./schema";

/** A failed API call, carrying the API's own message (`{error, code, status}`). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

const unauthorized = new Set<() => void>();
/** Called whenever any request answers 401 (the session ended): the app goes to sign-in. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
}

const projectAndSession: Middleware = {
  onRequest({ request }) {
    const project = currentProjectId();
    if (project) request.headers.set("x-project-id", project);
    return request;
  },
  onResponse({ request, response }) {
    const path = new URL(request.url).pathname;
    if (response.status === 401 && path !== "/api/auth/login" && path !== "/api/auth/me")
      for (const listener of unauthorized) listener();
    return response;
  },
};

/** The typed API client: paths, parameters and bodies come from the API's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: "same-origin" });
api.use(projectAndSession);

function messageOf(body: unknown, response: Response): string {
  if (body && typeof body === "object" && "error" in body) {
    const e = (body as { error: unknown }).error;
    if (typeof e === "string") return e;
    if (e && typeof e === "object" && "message" in e) return String((e as { message: unknown }).message);
  }
  if (typeof body === "string" && body) return body;
  return `${response.status} ${response.statusText || "request failed"}`;
}

/** The data of a successful call; throws an ApiError with the API's message otherwise. */
export async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await request;
  if (response.ok) return data as T;
  const code =
    error && typeof error === "object" && "code" in error
      ? String((error as { code: unknown }).code)
      : undefined;
  throw new ApiError(messageOf(error, response), response.status, code);
}

/** A response body type of the API, by path and method (for props of components). */
export type ApiData<
  P extends keyof paths,
  M extends keyof paths[P] & ("get" | "post" | "patch"),
> = paths[P][M] extends { responses: { 200: { content: { "application/json": infer T } } } }
  ? T
  : paths[P][M] extends { responses: { 201: { content: { "application/json": infer T } } } }
    ? T
    : never;
