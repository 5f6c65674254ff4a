import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/** The fixed list of general error codes and their HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_TRANSITION: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  BAD_GATEWAY: 502,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes of the transactional send endpoint (`{error: {code, message, missing?}}`). */
export type TxErrorCode =
  | "validation_error"
  | "comm_type_mismatch"
  | "missing_variables"
  | "unauthorized"
  | "comm_not_found"
  | "idempotency_key_mismatch"
  | "idempotency_in_flight"
  | "send_failed"
  | "bounce"
  | "suppressed"
  | "rate_limited"
  | "internal_error";

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export class TxError extends Error {
  constructor(
    readonly status: number,
    readonly code: TxErrorCode,
    message: string,
    readonly missing?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string, id?: string) =>
  new AppError("NOT_FOUND", id ? `${what} ${id} not found` : `${what} not found`);
export const validation = (message: string) => new AppError("VALIDATION_ERROR", message);

/** Names the offending field of an Ajv validation error, e.g. "body/target must be number". */
function describeValidation(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = err.validationContext ?? "body";
  const params = first.params as Record<string, unknown>;
  let field = first.instancePath.replace(/^\//, "").replace(/\//g, ".");
  if (typeof params.missingProperty === "string")
    field = field ? `${field}.${params.missingProperty}` : params.missingProperty;
  if (typeof params.additionalProperty === "string") {
    field = field ? `${field}.${params.additionalProperty}` : params.additionalProperty;
    return `${where}.${field} is not allowed`;
  }
  return field ? `${where}.${field} ${first.message}` : `${where} ${first.message}`;
}

interface Normalized {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
}

function normalize(err: unknown): Normalized {
  if (err instanceof AppError)
    return { status: err.status, code: err.code, message: err.message, headers: err.headers };
  const fe = err as FastifyError & { statusCode?: number };
  if (fe?.validation)
    return { status: 400, code: "VALIDATION_ERROR", message: describeValidation(fe), headers: {} };
  switch (fe?.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return {
        status: 415,
        code: "UNSUPPORTED_MEDIA_TYPE",
        message: "Content-Type must be application/json",
        headers: {},
      };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, code: "PAYLOAD_TOO_LARGE", message: "request body is too large", headers: {} };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { status: 400, code: "VALIDATION_ERROR", message: "body must not be empty", headers: {} };
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return { status: 400, code: "VALIDATION_ERROR", message: "invalid content-length", headers: {} };
  }
  if (err instanceof SyntaxError || fe?.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return { status: 400, code: "VALIDATION_ERROR", message: "body is not valid JSON", headers: {} };
  }
  const sc = fe?.statusCode;
  if (sc && sc >= 400 && sc < 500) {
    const code: ErrorCode =
      sc === 401
        ? "UNAUTHORIZED"
        : sc === 403
          ? "FORBIDDEN"
          : sc === 404
            ? "NOT_FOUND"
            : sc === 413
              ? "PAYLOAD_TOO_LARGE"
              : sc === 429
                ? "RATE_LIMITED"
                : "VALIDATION_ERROR";
    return { status: sc, code, message: fe.message, headers: {} };
  }
  return { status: 500, code: "INTERNAL", message: "internal server error", headers: {} };
}

const TX_CODE: Partial<Record<ErrorCode, TxErrorCode>> = {
  VALIDATION_ERROR: "validation_error",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "unauthorized",
  RATE_LIMITED: "rate_limited",
  PAYLOAD_TOO_LARGE: "validation_error",
  UNSUPPORTED_MEDIA_TYPE: "validation_error",
  NOT_FOUND: "validation_error",
};

/** The one error handler: general format everywhere, transactional format on routes that ask for it. */
export function handleError(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const txFormat =
    (req.routeOptions?.config as { errorFormat?: string } | undefined)?.errorFormat === "transactional";
  if (err instanceof TxError) {
    reply.headers(err.headers);
    const body: { code: string; message: string; missing?: string[] } = {
      code: err.code,
      message: err.message,
    };
    if (err.missing) body.missing = err.missing;
    return reply.code(err.status).send({ error: body });
  }
  const n = normalize(err);
  if (n.status >= 500) req.log.error({ err, reqId: req.id }, "request failed");
  reply.headers(n.headers);
  if (txFormat) {
    const code = TX_CODE[n.code] ?? "internal_error";
    return reply.code(n.status).send({ error: { code, message: n.message } });
  }
  return reply.code(n.status).send({ error: n.message, code: n.code, status: n.status });
}
