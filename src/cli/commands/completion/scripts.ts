/**
 * The shell scripts `ddsctl completion <shell>` prints. Each asks the hidden
 * `ddsctl __complete <words…>` for candidates (the words typed so far, the last one being
 * the word under the cursor) and falls back to file names when there are none.
 */
export const COMPLETION_SCRIPTS = {
  bash: `# ddsctl completion for bash: source <(ddsctl completion bash)
_ddsctl_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" IFS=$'\\n' out
  out=$(ddsctl __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  if [ -n "$out" ]; then
    COMPREPLY=($(compgen -W "$out" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _ddsctl_complete ddsctl
`,
  zsh: `#compdef ddsctl
# ddsctl completion for zsh: source <(ddsctl completion zsh)
_ddsctl() {
  local -a candidates
  candidates=("\${(@f)$(ddsctl __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${candidates[*]}" ]]; then
    compadd -- "\${candidates[@]}"
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" = "_ddsctl" ]]; then _ddsctl "$@"; else compdef _ddsctl ddsctl; fi
`,
  fish: `# ddsctl completion for fish: ddsctl completion fish | source
function __ddsctl_complete
    set -l tokens (commandline -opc)
    ddsctl __complete $tokens[2..-1] (commandline -ct) 2>/dev/null
end
complete -c ddsctl -a '(__ddsctl_complete)'
`,
} as const;

/** The shells with a script. */
export type Shell = keyof typeof COMPLETION_SCRIPTS;
