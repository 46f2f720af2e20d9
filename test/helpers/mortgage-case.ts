import type { LocalEngine } from "../../src/engine/local-engine.js";
import type { setupMortgageModels } from "../contract/mortgage-models.js";

/** A new mortgage context with one loan contribution: stale until a pass resolves it. */
export async function newMortgageCase(engine: LocalEngine, models: Awaited<ReturnType<typeof setupMortgageModels>>, amount = 200000): Promise<string> {
  const { contextId } = await engine.createContext({ name: "c", type: "mortgage" });
  await engine.createContribution({ contextId, modelId: models.Loan, sourceId: "form", sourceType: "document", data: { amount, propertyValue: 400000, monthlyDebt: 1000 } });
  return contextId;
}

/** A context's freshness as the engine reports it. */
export const freshnessOf = async (engine: LocalEngine, id: string) => (await engine.getContext(id)).freshness;
