export {
  PREDICATE_OPS,
  type Predicate,
  type PredicateEvent,
  type PredicateOp,
} from "./model.js";
export { eventHolds, eventValue, holds, pageOf, readPath, textOf } from "./evaluate.js";
export { trimSlash, type UrlPatternKind, urlMatches, urlPatternKind } from "./url.js";
