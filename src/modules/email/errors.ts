import { type ErrorCode, type ErrorFormat, FormattedError } from "../../platform/errors.js";
import { TransactionalError, type TX_ERROR_CODES } from "./schema.js";

/** A code of the transactional send API (`{error: {code, message, missing?}}`). */
export type TxErrorCode = (typeof TX_ERROR_CODES)[number];

/** Status of each transactional error code: the one place a status is chosen. */
export const TX_ERROR_STATUS: Record<TxErrorCode, number> = {
  validation_error: 400,
  comm_type_mismatch: 400,
  missing_variables: 400,
  unauthorized: 401,
  comm_not_found: 404,
  idempotency_key_mismatch: 409,
  idempotency_in_flight: 409,
  send_failed: 422,
  bounce: 422,
  suppressed: 422,
  rate_limited: 429,
  internal_error: 500,
};

export class TxError extends FormattedError {
  declare readonly code: TxErrorCode;
  constructor(code: TxErrorCode, message: string, missing?: string[], headers: Record<string, string> = {}) {
    super(TX_ERROR_STATUS[code], code, message, missing ? { missing } : {}, headers);
  }
}

/** General codes raised outside the module (body parser, auth plugins, limits) as transactional ones. */
const FROM_GENERAL: Partial<Record<ErrorCode, TxErrorCode>> = {
  VALIDATION_ERROR: "validation_error",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "unauthorized",
  RATE_LIMITED: "rate_limited",
  PAYLOAD_TOO_LARGE: "validation_error",
  UNSUPPORTED_MEDIA_TYPE: "validation_error",
  NOT_FOUND: "validation_error",
};

/** The transactional API's error format, named by its routes' `config.errorFormat`. */
export const TRANSACTIONAL_ERRORS: ErrorFormat = {
  schemaName: "TransactionalError",
  schema: TransactionalError,
  statuses: TX_ERROR_STATUS,
  codeFor: (general) => FROM_GENERAL[general] ?? "internal_error",
  body: (code, message, extra, requestId) => ({ error: { code, message, ...extra, requestId } }),
};

export const sendLimitExceeded = (max: number, after: string) =>
  new TxError("rate_limited", `rate limit exceeded: ${max} sends per minute for this key; retry in ${after}`);
