/**
 * A fencing token on claims: every claim of a context takes the next number, and a pass
 * commits only while the context still carries its number, so a pass whose lease ran out
 * and was taken over can never commit late (even when the same worker claimed it again).
 */
export const sql = `
ALTER TABLE contexts ADD COLUMN claim_token INTEGER NOT NULL DEFAULT 0;
`;
