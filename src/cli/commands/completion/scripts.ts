/**
 * The shell scripts `ddsctl completion <shell>` prints. Each asks the hidden
 * `ddsctl __complete <words…>` for candidates (the words typed after `ddsctl`, the last one
 * being the word under the cursor) and falls back to file names when there are none.
 *
 * They complete `ddsctl …` and `npx ddsctl …` alike, and run the ddsctl that printed them by
 * its path (`node <package>/bin/ddsctl`), not whatever `ddsctl` is on the PATH: the README
 * installs with `source <(npx ddsctl completion bash)`, where no `ddsctl` is on the PATH.
 */

/** The shells with a script. */
export const SHELLS = ["bash", "zsh", "fish", "powershell"] as const;
export type Shell = (typeof SHELLS)[number];

/** A word for POSIX shells (bash, zsh): single-quoted. */
const posix = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A word for fish: single-quoted, with \ and ' escaped. */
const fishWord = (s: string) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
/** A word for PowerShell: single-quoted, ' doubled. */
const psWord = (s: string) => `'${s.replace(/'/g, "''")}'`;

function bash(bin: string): string {
  return `# ddsctl completion for bash: source <(npx ddsctl completion bash)   (or ddsctl completion bash)
# Completes "ddsctl …" and "npx ddsctl …".
_ddsctl_complete_from() {
  # $1: where "ddsctl" is among the words. The line is split here, not by COMP_WORDS, which
  # bash breaks at = and : (--filter status=active must reach ddsctl whole).
  local line="\${COMP_LINE:0:COMP_POINT}" words cur out prefix c IFS=$' \\t\\n'
  read -r -a words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  cur="\${words[\${#words[@]}-1]}"
  out=$(node ${posix(bin)} __complete "\${words[@]:$1+1}" 2>/dev/null)
  # bash replaces only its own last word (after an = or :): drop what comes before it.
  prefix="\${cur%"\${COMP_WORDS[COMP_CWORD]}"}"
  [[ "$prefix" == "$cur" ]] && prefix=""
  COMPREPLY=()
  if [ -n "$out" ]; then
    IFS=$'\\n'
    for c in $out; do COMPREPLY+=("\${c#"$prefix"}"); done
    # A filter field (status=, metadata.) takes its value right after it, not after a space.
    [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == *[=.] ]] && compopt -o nospace 2>/dev/null
  else
    IFS=$'\\n' COMPREPLY=($(compgen -f -- "\${COMP_WORDS[COMP_CWORD]}"))
  fi
  return 0
}
_ddsctl_complete() { _ddsctl_complete_from 0; }
_ddsctl_npx_complete() {
  # Other npx commands get bash's default completion (-o default).
  if [[ "\${COMP_WORDS[1]}" == ddsctl && $COMP_CWORD -gt 1 ]]; then _ddsctl_complete_from 1; else COMPREPLY=(); fi
}
complete -o filenames -F _ddsctl_complete ddsctl
complete -o default -F _ddsctl_npx_complete npx
`;
}

function zsh(bin: string): string {
  return `#compdef ddsctl npx
# ddsctl completion for zsh: source <(npx ddsctl completion zsh) after compinit,
# or save it as _ddsctl in a folder of $fpath. Completes "ddsctl …" and "npx ddsctl …".
_ddsctl() {
  local -a found joined spaced
  local first=2
  if [[ \${words[1]} == npx ]]; then
    if [[ \${words[2]} != ddsctl || CURRENT -le 2 ]]; then _default; return; fi
    first=3
  fi
  found=("\${(@f)$(node ${posix(bin)} __complete "\${(@)words[first,CURRENT]}" 2>/dev/null)}")
  found=(\${found:#})
  if (( \${#found} == 0 )); then _files; return; fi
  # A filter field (status=, metadata.) takes its value right after it, not after a space.
  joined=(\${(M)found:#*[=.]})
  spaced=(\${found:#*[=.]})
  (( \${#joined} )) && compadd -S '' -- "\${joined[@]}"
  (( \${#spaced} )) && compadd -- "\${spaced[@]}"
  return 0
}
if [[ "\${funcstack[1]}" = "_ddsctl" ]]; then _ddsctl "$@"; else compdef _ddsctl ddsctl npx; fi
`;
}

function fish(bin: string): string {
  return `# ddsctl completion for fish: npx ddsctl completion fish | source
# Completes "ddsctl …" and "npx ddsctl …".
function __ddsctl_complete
    set -l tokens (commandline -opc)
    test "$tokens[1]" = npx; and set -e tokens[1]
    node ${fishWord(bin)} __complete $tokens[2..-1] (commandline -ct) 2>/dev/null
end
function __ddsctl_after_npx
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and test "$tokens[2]" = ddsctl
end
complete -c ddsctl -a '(__ddsctl_complete)'
complete -c npx -n __ddsctl_after_npx -a '(__ddsctl_complete)'
`;
}

function powershell(bin: string): string {
  return `# ddsctl completion for PowerShell (7.3 or later):
#   npx ddsctl completion powershell | Out-String | Invoke-Expression
# Add that line to $PROFILE. Completes "ddsctl …" and "npx ddsctl …".
Register-ArgumentCompleter -Native -CommandName ddsctl, npx -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $typed = @($commandAst.CommandElements | Where-Object { $_.Extent.StartOffset -lt $cursorPosition } | ForEach-Object { $_.Extent.Text })
    if ($typed[0] -eq 'npx') {
        if ($typed.Count -lt 2 -or $typed[1] -ne 'ddsctl') { return }
        $typed = @($typed | Select-Object -Skip 1)
    }
    $words = @($typed | Select-Object -Skip 1)
    # The cursor after a space starts a new, empty word.
    if ($wordToComplete -eq '') { $words += '' }
    $found = @(& node ${psWord(bin)} __complete @words 2>$null)
    foreach ($candidate in $found) {
        [System.Management.Automation.CompletionResult]::new($candidate, $candidate, 'ParameterValue', $candidate)
    }
}
`;
}

/** The completion script of `shell`, running the ddsctl at `bin`. */
export function completionScript(shell: Shell, bin: string): string {
  switch (shell) {
    case "bash":
      return bash(bin);
    case "zsh":
      return zsh(bin);
    case "fish":
      return fish(bin);
    case "powershell":
      return powershell(bin);
  }
}
