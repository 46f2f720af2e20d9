export { hasScope, parseScope, SCOPES } from "./scopes.js";
export { generateToken, hashToken, TOKEN_PREFIX } from "./token-secret.js";
export {
  createAuthenticator,
  issueToken,
  issueTokenReporting,
  listTokens,
  revokeToken,
  setTokenRate,
  setWorkspaceRate,
  workspaceRate,
  type Authenticator,
  type IssuedToken,
  type IssueOutcome,
  type IssueTokenOptions,
  type Principal,
  type TokenInfo,
  type WorkspaceRate,
} from "./tokens.js";
export { listWorkspaces, type WorkspaceInfo } from "./workspaces.js";
