// Stand-ins for zsh's completion builtins that print the candidates they are given: a `zsh -c` script
// that sources the generated completion file and runs completion function `fn` over its arguments.
export function zshCompletionScript(file: string, fn: string): string {
  return `
compdef() { }
_describe() { shift 3; local -a arr; arr=("\${(@P)1}"); local e; for e in $arr; do print -r -- "\${e%%:*}"; done }
compadd() { [[ $1 == -- ]] && shift; if [[ $1 == -a ]]; then print -l -- "\${(@P)2}"; return; fi; print -l -- "$@" }
_default() { print "<default>" }
source ${JSON.stringify(file)}
words=("$@"); CURRENT=$#words
${fn}
`;
}

/** A `bash -c` script that sources the completion file, completes `words` (the last being completed)
 * with function `fn` and prints the candidates one per line. */
export function bashCompletionScript(file: string, words: string[], fn = "_partner_cli"): string {
  return `
source ${JSON.stringify(file)}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
${fn}
printf '%s\\n' "\${COMPREPLY[@]}"
`;
}
