import { sandbox } from "../../helpers/cli.js";
import { describeUnchangedRerun } from "./unchanged-rerun-suite.js";

// Locally on SQLite, and in the remote project through a real `ddsctl serve`.
describeUnchangedRerun("SQLite", async () => sandbox());
