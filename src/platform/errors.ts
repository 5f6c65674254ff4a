import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TSchema } from "@sinclair/typebox";
import type { ErrorObject } from "ajv";
import { isUniqueViolation } from "./db/unique.js";
import { drainUnreadBody } from "./http/body-drain.js";
import { describeFirstError } from "./validation.js";

/** The fixed list of general error codes and their HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  INVALID_TRANSITION: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  BAD_GATEWAY: 502,
  UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Extra members of the error body (a batch's per-event `errors`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/**
 * A family of routes with an error body of its own (email's transactional API, which the spec
 * gives its own codes). The owning module defines it; a route names it in `config.errorFormat`,
 * and the one handler and the OpenAPI document both read it from there.
 */
export interface ErrorFormat {
  /** The OpenAPI component of its error body. */
  readonly schemaName: string;
  readonly schema: TSchema;
  /** The status of each of its own codes. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Its code for an error raised outside the module (validation, the body parser, limits). */
  codeFor(general: ErrorCode): string;
  /**
   * The body of an error with its own code; `requestId` is the id in the request's log line, `req`
   * the request (a format may name what it asked for, as OFREP names the flag).
   */
  body(
    code: string,
    message: string,
    extra: Record<string, unknown>,
    requestId: string,
    req: FastifyRequest,
  ): unknown;
}

/** An error in a route family's own format: thrown by that module, answered by the one handler. */
export class FormattedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string, id?: string) =>
  new AppError("NOT_FOUND", id ? `${what} ${id} not found` : `${what} not found`);
export const validation = (message: string) => new AppError("VALIDATION_ERROR", message);

/** Names the offending field of an Ajv validation error, e.g. "body.target must be a number". */
function describeValidation(err: FastifyError): string {
  if (!err.validation?.length) return err.message;
  return describeFirstError(err.validation as ErrorObject[], err.validationContext ?? "body");
}

interface Normalized {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
  details?: Record<string, unknown>;
}

function normalize(err: unknown): Normalized {
  if (err instanceof AppError)
    return {
      status: err.status,
      code: err.code,
      message: err.message,
      headers: err.headers,
      details: err.details,
    };
  const fe = err as FastifyError & { statusCode?: number };
  if (fe?.validation)
    return { status: 400, code: "VALIDATION_ERROR", message: describeValidation(fe), headers: {} };
  switch (fe?.code) {
    // Raised by the router before any route runs (through Fastify's `frameworkErrors`).
    case "FST_ERR_BAD_URL":
      return {
        status: 400,
        code: "VALIDATION_ERROR",
        message: "the path is not valid percent-encoding",
        headers: {},
      };
    case "FST_ERR_MAX_PARAM_LENGTH":
      return {
        status: 400,
        code: "VALIDATION_ERROR",
        message: `a path segment is longer than ${MAX_PARAM_LENGTH} characters`,
        headers: {},
      };
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
  // A create that lost a race to an identical one: services check first and answer their own 409
  // message; the unique index is what decides when two checks pass at once.
  if (isUniqueViolation(err))
    return {
      status: 409,
      code: "CONFLICT",
      message: "a record with the same unique value already exists",
      headers: {},
    };
  if (err instanceof FormattedError)
    return { status: err.status, code: codeOf(err.status), message: err.message, headers: err.headers };
  if (err instanceof SyntaxError || fe?.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return { status: 400, code: "VALIDATION_ERROR", message: "body is not valid JSON", headers: {} };
  }
  const sc = fe?.statusCode;
  if (sc && sc >= 400 && sc < 500) return { status: sc, code: codeOf(sc), message: fe.message, headers: {} };
  return { status: 500, code: "INTERNAL", message: "internal server error", headers: {} };
}

/** The general code for a 4xx status raised outside our own code (plugins, the transactional key check). */
function codeOf(status: number): ErrorCode {
  const exact = (Object.keys(ERROR_STATUS) as ErrorCode[]).find(
    (c) => ERROR_STATUS[c] === status && c !== "INVALID_TRANSITION",
  );
  if (exact) return exact;
  return status >= 500 ? "INTERNAL" : "VALIDATION_ERROR";
}

/**
 * The one error handler: the general format everywhere, a route family's own format where the
 * route names one. Every body carries the request id its log line carries.
 */
export function handleError(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  drainUnreadBody(req, reply);
  const format = req.routeOptions?.config?.errorFormat;
  if (err instanceof FormattedError && format) {
    reply.headers(err.headers);
    return reply.code(err.status).send(format.body(err.code, err.message, err.extra, req.id, req));
  }
  const n = normalize(err);
  // A 503 Lift chose (shutting down, a full read pool, a report past its deadline, streams at
  // their cap) is load shed on purpose, not a fault: one warning line without a stack, so an
  // attack's refusals do not read as errors.
  if (err instanceof AppError && n.status === 503)
    req.log.warn({ reqId: req.id, code: err.code, message: err.message }, "request refused: unavailable");
  else if (n.status >= 500) req.log.error({ err, reqId: req.id }, "request failed");
  reply.headers(n.headers);
  if (format)
    return reply.code(n.status).send(format.body(format.codeFor(n.code), n.message, {}, req.id, req));
  return reply
    .code(n.status)
    .send({ error: n.message, code: n.code, status: n.status, ...n.details, requestId: req.id });
}

/** Longest path parameter the router accepts (a 320-character email address fits). */
export const MAX_PARAM_LENGTH = 500;

/**
 * Errors the Node HTTP server meets before Fastify sees a request (`clientError`): headers or
 * request line past the size limit (431), a request timeout (408), anything the parser cannot
 * read (400). Answered in the general format on the raw socket, which is then closed; no route
 * is known yet, so the transactional format cannot apply.
 */
export function handleClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? ["HEADERS_TOO_LARGE", "the request line and headers are larger than the server accepts"]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ["REQUEST_TIMEOUT", "the request was not received in time"]
        : ["VALIDATION_ERROR", "the request is not valid HTTP"];
  const status = ERROR_STATUS[code];
  // No request exists yet: an id of its own, so the answer can still be found in the log.
  const requestId = `client-${randomUUID()}`;
  const body = JSON.stringify({ error: message, code, status, requestId });
  this.log.info({ reqId: requestId, err: { code: err.code, message: err.message } }, "client error");
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
