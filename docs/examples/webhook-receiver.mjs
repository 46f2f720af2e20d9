// A webhook receiver for ddsctl, as docs/webhooks.md describes it: verify the signature
// with the Standard Webhooks library, answer 2xx at once, and handle each event once even
// though it may arrive more than once (de-duplicate by webhook-id).
//
//   npm install standardwebhooks
//   WEBHOOK_SECRET=whsec_... PORT=3000 node webhook-receiver.mjs
//
// It prints one JSON line per request on stdout: {"webhookId","type","duplicate"} for an
// accepted event, {"rejected": reason} for a refused request.
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("set WEBHOOK_SECRET to the secret `ddsctl webhooks create` printed (whsec_...)");
  process.exit(2);
}
const verifier = new Webhook(secret);
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "127.0.0.1";
const MAX_BODY = 1024 * 1024;

// Ids of events already handled. Delivery is at least once: a retry, a redelivery or a
// recovery sends an event again with the same webhook-id. A real receiver keeps these
// where its work is stored (a unique key on webhook-id, written in the same transaction
// as the work), and for longer than the retry schedule (a day and more).
const handled = new Set();

/** The work an event triggers. Here: print it. Runs after the answer, never before it. */
async function handle(event) {
  // e.g. event.type === "context.resolved": fetch the context's records and decide.
  void event;
}

const log = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const server = createServer((req, res) => {
  if (req.method !== "POST") return res.writeHead(405).end();
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) req.destroy();
    else chunks.push(chunk);
  });
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    let event;
    try {
      // Checks webhook-signature over "<webhook-id>.<webhook-timestamp>.<body>" and that the
      // timestamp is within 5 minutes. Verify the raw body, before any JSON parsing.
      event = verifier.verify(body, req.headers);
    } catch (err) {
      log({ rejected: err.message });
      return res.writeHead(401).end();
    }
    const id = req.headers["webhook-id"];
    const duplicate = handled.has(id);
    handled.add(id);
    log({ webhookId: id, type: event.type, duplicate });
    // Answer first (well within the time-out, 10 s by default), work afterwards: a slow
    // answer counts as a failure and the event comes back.
    res.writeHead(204).end();
    if (!duplicate) handle(event).catch((err) => console.error(`handling ${id} failed: ${err.message}`));
  });
});

server.listen(port, host, () => console.error(`listening on http://${host}:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
