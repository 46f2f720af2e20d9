/** The rules: each opens the editor. */
import { ErrorNote, Loading, State } from "../components/bits.js";
import { loadRules } from "../data/cases.js";
import { Link } from "../router.js";
import { useAsync } from "../util/use-async.js";

/** The rules view (`/rules`). */
export function RulesView() {
  const rules = useAsync(loadRules, []);
  return (
    <div class="view">
      <h1>Rules</h1>
      <ErrorNote error={rules.error} />
      {!rules.data && !rules.error && <Loading what="rules" />}
      {rules.data && (
        <table class="grid" aria-label="Rules">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Category</th>
              <th scope="col">Severity</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">Version</th>
              <th scope="col">Applies to</th>
            </tr>
          </thead>
          <tbody>
            {rules.data.map((r) => (
              <tr data-rule={r.name}>
                <td>
                  <Link href={`/rules/${r.ruleId}`}>{r.name}</Link>
                </td>
                <td>{r.category}</td>
                <td>{r.severity}</td>
                <td>
                  <State value={r.status} />
                </td>
                <td class="num">{r.version}</td>
                <td>{r.contextTypes.length ? r.contextTypes.join(", ") : "every type"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
