import { join } from "node:path";
import { defineCommand } from "../../core/define-command.js";
import { packageRoot } from "../../package-root.js";
import { completionScript, SHELLS, type Shell } from "./scripts.js";

/** `ddsctl completion bash|zsh|fish|powershell`. */
export default defineCommand({
  command: "completion",
  description: "print the shell completion script: commands and aliases, flags, --filter fields and values, and the names of models, contexts and rules from the current target",
  examples: [
    "source <(npx ddsctl completion bash)   # add to ~/.bashrc",
    "source <(npx ddsctl completion zsh)    # add to ~/.zshrc, after compinit",
    "npx ddsctl completion fish | source    # add to ~/.config/fish/config.fish",
    "npx ddsctl completion powershell | Out-String | Invoke-Expression   # add to $PROFILE",
  ],
  args: { shell: { type: "string", positional: true, required: true, choices: SHELLS, description: "the shell" } },
  help: "The script completes both `ddsctl …` and `npx ddsctl …`, and runs this ddsctl by its path: nothing needs to be on the PATH.",
  async handler(args, ctx) {
    ctx.out.write(completionScript(args.shell as Shell, join(packageRoot(), "bin", "ddsctl")));
  },
});
