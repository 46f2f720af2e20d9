import { defineCommand } from "../../core/define-command.js";
import { COMPLETION_SCRIPTS, type Shell } from "./scripts.js";

/** `ddsctl completion bash|zsh|fish`. */
export default defineCommand({
  command: "completion",
  description: "print the shell completion script: commands, flags, and the names of models, contexts and rules from the current target",
  examples: ["source <(ddsctl completion bash)   # add to ~/.bashrc", "ddsctl completion zsh > \"${fpath[1]}/_ddsctl\"", "ddsctl completion fish > ~/.config/fish/completions/ddsctl.fish"],
  args: { shell: { type: "string", positional: true, required: true, choices: ["bash", "zsh", "fish"], description: "the shell" } },
  help: "The script runs `ddsctl`: install it on PATH (npm install -g ddsctl) or define an alias first.",
  async handler(args, ctx) {
    ctx.out.write(COMPLETION_SCRIPTS[args.shell as Shell]);
  },
});
