/**
 * The HTTP status of a service answer when it is not its operation's usual one: a
 * contribution equal to the accepted one of its source is answered 200 with that
 * contribution rather than 201 with a new one. Carried on the answer object under a symbol
 * (never serialised): the engine sets it, the server answers with it, and the HTTP client
 * sets it again from the status it receives, so callers tell the two apart in both modes.
 */
export const ANSWER_STATUS: unique symbol = Symbol.for("ddsctl.answer-status");

/** `answer`, marked as answered with `status`. */
export function withAnswerStatus<T extends object>(answer: T, status: number): T {
  Object.defineProperty(answer, ANSWER_STATUS, { value: status, enumerable: false });
  return answer;
}

/** The status an answer was marked with, if any. */
export function answerStatus(answer: unknown): number | undefined {
  return answer !== null && typeof answer === "object" ? ((answer as { [ANSWER_STATUS]?: number })[ANSWER_STATUS] ?? undefined) : undefined;
}
