/**
 * The enumerations of the contract as plain arrays. They live apart from the zod schemas
 * so the CLI can list them in --help without loading zod at start-up.
 */
export const FIELD_TYPES = ["string", "number", "integer", "boolean", "date", "datetime", "enum", "json"] as const;
export const RESOLUTION_POLICIES = ["highest_confidence", "latest", "earliest", "source_priority", "majority", "min", "max"] as const;
export const SOURCE_TYPES = ["document", "integration", "user", "manual", "system"] as const;
export const MODEL_STATUSES = ["draft", "active", "archived"] as const;
export const CONTEXT_STATUSES = ["active", "completed", "archived"] as const;
export const FRESHNESS = ["resolved", "stale", "computing"] as const;
/** Most items a bulk request may carry (interface, Limits). */
export const BULK_MAX_ITEMS = 100;
export const RECORD_INCLUDES = ["model", "lineage"] as const;
export const CONTRIBUTION_STATUSES = ["accepted", "superseded"] as const;
export const RULE_CATEGORIES = ["eligibility", "affordability", "credit", "fraud", "compliance", "data_quality"] as const;
export const RULE_SEVERITIES = ["low", "medium", "high", "critical"] as const;
export const RULE_STATUSES = ["active", "inactive"] as const;
export const WEBHOOK_EVENTS = ["context.stale", "context.resolved", "context.status_changed", "evaluation.changed"] as const;
/** A subscription is `disabled` by request, or after its endpoint failed every attempt for days. */
export const WEBHOOK_STATUSES = ["enabled", "disabled"] as const;
/** Where a delivery stands: still owed (`pending`), settled by a 2xx, or given up on. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

/**
 * Names that would collide with JavaScript object internals when used as keys or path
 * segments; rejected everywhere a name becomes a key. Here rather than beside the schemas
 * so pure code (the rule evaluator, which the studio's page also bundles) needs no zod.
 */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
