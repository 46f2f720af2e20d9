import { DdsError, isDdsError } from "../../../contract/errors.js";
import { openService } from "../../service-factory.js";

/**
 * Checks a base URL and token the way the interface says to: a GET /models that answers
 * 200 with a models list. A refused token or an unreachable service is an error (exit 1)
 * that says which.
 */
export async function verifyRemote(baseUrl: string, token: string): Promise<void> {
  const service = await openService({ mode: "remote", baseUrl, token, source: "login" }, { env: {} });
  try {
    await service.listModels({ limit: 1 });
  } catch (err) {
    if (isDdsError(err) && (err.status === 401 || err.status === 403)) {
      throw new DdsError(err.code, `${baseUrl} refused the token: ${err.message}`);
    }
    throw err;
  } finally {
    await service.close().catch(() => undefined);
  }
}
