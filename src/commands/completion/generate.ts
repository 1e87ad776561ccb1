// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, not templates
// Completion scripts for bash, zsh and fish, generated from the command-tree model (tree.ts):
// nouns, verbs, aliases, flags, the values of flags and arguments with fixed choices (--format,
// --preset, --state, completion SHELL). Each script tracks where in the tree the words typed so far
// lead (skipping flags and the values of flags that take one); the values only the CLI can know
// (stored profile names, campaign references) it asks of `partner-cli __complete`. Each also
// completes `npx partner-cli ...`. PowerShell's script (powershell.ts) asks `__complete` for all.
import { powershellScript } from "./powershell.js";
import {
  allNodes,
  type CommandNode,
  flagsOf,
  globalOptions,
  type OptionInfo,
  optionsAt,
  type ValueSource,
} from "./tree.js";

export type Shell = "bash" | "zsh" | "fish" | "powershell";
export const SHELLS: Shell[] = ["bash", "zsh", "fish", "powershell"];

const BIN = "partner-cli";
/** How the scripts run the CLI: as typed (`npx partner-cli` sets the variable), else from PATH. */
const RUN = "${_partner_cli_bin:-partner-cli}";
/** What `npx partner-cli` runs when completing: the local or cached package, never a download. */
const NPX_RUN = "npx --no partner-cli";

function globalsOf(root: CommandNode): OptionInfo[] {
  return globalOptions(root);
}

interface Transition {
  from: string;
  word: string;
  to: string;
}

function transitions(root: CommandNode): Transition[] {
  const out: Transition[] = [];
  for (const n of allNodes(root)) {
    for (const c of n.children) {
      for (const w of [c.name, ...c.aliases]) out.push({ from: n.id, word: w, to: c.id });
    }
  }
  return out;
}

/** Flags whose next word is a value, per node ("*" for the program's global ones). */
interface ValueFlag {
  node: string;
  flag: string;
  choices: string[] | undefined;
  profile: boolean;
  source: ValueSource | undefined;
}

/** The words `__complete` is asked to complete for a source: a command line whose next word is one. */
const ASK: Record<ValueSource, string> = {
  profiles: '--profile ""',
  campaigns: 'campaigns get ""',
};

/** A shell command printing the values of a source, one per line (`__complete` prints "value<TAB>description"). */
function ask(source: ValueSource, run = RUN): string {
  return `${run} __complete -- ${ASK[source]} 2>/dev/null | cut -f1`;
}

function valueFlags(root: CommandNode): ValueFlag[] {
  const out: ValueFlag[] = [];
  for (const g of globalsOf(root)) {
    if (g.takesValue)
      for (const f of flagsOf(g))
        out.push({ node: "*", flag: f, choices: g.choices, profile: g.profileValue, source: g.source });
  }
  const globalFlags = new Set(globalsOf(root).flatMap(flagsOf));
  for (const n of allNodes(root)) {
    if (n === root) continue;
    for (const o of n.options) {
      if (!o.takesValue) continue;
      for (const f of flagsOf(o))
        if (!globalFlags.has(f))
          out.push({ node: n.id, flag: f, choices: o.choices, profile: o.profileValue, source: o.source });
    }
  }
  return out;
}

function childWords(n: CommandNode): string[] {
  return n.children.flatMap((c) => [c.name, ...c.aliases]);
}

// ---------------------------------------------------------------- bash

/** The bash word list of a leaf's positional values: fixed choices, or a source asked of the CLI. */
function leafValues(n: CommandNode): string | undefined {
  if (n.argSource) return `$(${ask(n.argSource)})`;
  const choices = n.arguments[0]?.choices;
  return choices?.length ? choices.join(" ") : undefined;
}

function bashWalk(root: CommandNode, vf: ValueFlag[], pat: (n: string, w: string) => string): string[] {
  const lines = ["  for ((i = 1; i < COMP_CWORD; i++)); do", '    w="${COMP_WORDS[i]}"'];
  lines.push("    if ((skip)); then skip=0; continue; fi");
  if (vf.length) {
    lines.push('    case "$node $w" in');
    for (const v of vf) lines.push(`      ${pat(v.node, v.flag)}) skip=1; continue ;;`);
    lines.push("    esac");
  }
  lines.push('    case "$w" in -*) continue ;; esac');
  lines.push("    from=$node");
  lines.push('    case "$node $w" in');
  for (const t of transitions(root)) lines.push(`      ${pat(t.from, t.word)}) node=${t.to} ;;`);
  lines.push("    esac");
  lines.push('    [[ "$node" == "$from" ]] && ((npos++))');
  lines.push("  done");
  return lines;
}

function bashScript(root: CommandNode): string {
  const vf = valueFlags(root);
  const pat = (node: string, word: string) => (node === "*" ? `*" ${word}"` : `"${node} ${word}"`);
  const lines: string[] = [];
  lines.push(`# bash completion for ${BIN}, generated from its command tree by "${BIN} completion bash".`);
  lines.push(`# It completes "${BIN} ..." and "npx ${BIN} ...".`);
  lines.push(`# Load it now:     source <(${BIN} completion bash)`);
  lines.push(`# Or install it:   ${BIN} completion bash > ~/.local/share/bash-completion/completions/${BIN}`);
  lines.push(`_partner_cli_profiles() { ${ask("profiles")}; }`);
  lines.push(`_partner_cli_campaigns() { ${ask("campaigns")}; }`);
  lines.push("_partner_cli() {");
  lines.push('  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"');
  lines.push("  local node=root skip=0 npos=0 i w from");
  lines.push("  COMPREPLY=()");
  lines.push(...bashWalk(root, vf, pat));
  lines.push('  case "$node $prev" in');
  for (const v of vf) {
    const source = v.profile ? "profiles" : v.source;
    lines.push(
      source
        ? `    ${pat(v.node, v.flag)}) COMPREPLY=($(compgen -W "$(_partner_cli_${source})" -- "$cur")); return ;;`
        : v.choices?.length
          ? `    ${pat(v.node, v.flag)}) COMPREPLY=($(compgen -W "${v.choices.join(" ")}" -- "$cur")); return ;;`
          : `    ${pat(v.node, v.flag)}) return ;;`,
    );
  }
  lines.push("  esac");
  lines.push('  if [[ "$cur" == -* ]]; then');
  lines.push("    local opts");
  lines.push('    case "$node" in');
  for (const n of allNodes(root)) {
    lines.push(`      ${n.id}) opts="${optionsAt(n, root).flatMap(flagsOf).join(" ")}" ;;`);
  }
  lines.push("    esac");
  lines.push('    COMPREPLY=($(compgen -W "$opts" -- "$cur"))');
  lines.push("    return");
  lines.push("  fi");
  lines.push('  case "$node" in');
  for (const n of allNodes(root)) {
    const words = n.id === "help" ? [...childWords(root), ...root.topics].join(" ") : undefined;
    if (n.children.length)
      lines.push(
        `    ${n.id}) ((npos == 0)) && COMPREPLY=($(compgen -W "${childWords(n).join(" ")}" -- "$cur")) ;;`,
      );
    else if (words)
      lines.push(`    ${n.id}) ((npos == 0)) && COMPREPLY=($(compgen -W "${words}" -- "$cur")) ;;`);
    else if (leafValues(n))
      lines.push(`    ${n.id}) ((npos == 0)) && COMPREPLY=($(compgen -W "${leafValues(n)}" -- "$cur")) ;;`);
  }
  lines.push("  esac");
  lines.push("}");
  lines.push(...bashNpx());
  lines.push(`complete -o default -F _partner_cli ${BIN}`);
  lines.push("complete -o default -F _partner_cli_npx npx");
  return `${lines.join("\n")}\n`;
}

/** `npx partner-cli ...`: the words after npx completed as partner-cli's, the CLI run through npx. */
function bashNpx(): string[] {
  return [
    "_partner_cli_npx() {",
    "  COMPREPLY=()",
    `  if ((COMP_CWORD == 1)); then COMPREPLY=($(compgen -W "${BIN}" -- "\${COMP_WORDS[1]}")); return; fi`,
    `  [[ "\${COMP_WORDS[1]}" == ${BIN} ]] || return`,
    `  local _partner_cli_bin="${NPX_RUN}"`,
    '  COMP_WORDS=("${COMP_WORDS[@]:1}")',
    "  ((COMP_CWORD--))",
    "  _partner_cli",
    "}",
  ];
}

// ---------------------------------------------------------------- zsh

/** A zsh single-quoted string. */
function zq(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** A _describe entry "name:description" (colons in the name escaped). */
function describeEntry(name: string, description: string): string {
  return zq(`${name.replace(/:/g, "\\:")}:${description}`);
}

function zshWalk(root: CommandNode, vf: ValueFlag[], pat: (n: string, w: string) => string): string[] {
  const lines = ["  for ((i = 2; i < CURRENT; i++)); do", '    w="${words[i]}"'];
  lines.push("    if ((skip)); then skip=0; continue; fi");
  if (vf.length) {
    lines.push('    case "$node $w" in');
    for (const v of vf) lines.push(`      (${pat(v.node, v.flag)}) skip=1; continue ;;`);
    lines.push("    esac");
  }
  lines.push('    [[ "$w" == -* ]] && continue');
  lines.push("    from=$node");
  lines.push('    case "$node $w" in');
  for (const t of transitions(root)) lines.push(`      (${pat(t.from, t.word)}) node=${t.to} ;;`);
  lines.push("    esac");
  lines.push('    [[ "$node" == "$from" ]] && ((npos++))');
  lines.push("  done");
  return lines;
}

function zshValues(root: CommandNode, vf: ValueFlag[], pat: (n: string, w: string) => string): string[] {
  const lines = ['  local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"', '  case "$node $prev" in'];
  for (const v of vf) {
    const source = v.profile ? "profiles" : v.source;
    lines.push(
      source
        ? `    (${pat(v.node, v.flag)}) _partner_cli_${source}; return ;;`
        : v.choices?.length
          ? `    (${pat(v.node, v.flag)}) compadd -- ${v.choices.join(" ")}; return ;;`
          : `    (${pat(v.node, v.flag)}) _default; return ;;`,
    );
  }
  lines.push("  esac");
  lines.push("  local -a cands");
  lines.push('  if [[ "$cur" == -* ]]; then');
  lines.push('    case "$node" in');
  for (const n of allNodes(root)) {
    const entries = optionsAt(n, root).flatMap((o) => flagsOf(o).map((f) => describeEntry(f, o.description)));
    lines.push(`      (${n.id}) cands=(${entries.join(" ")}) ;;`);
  }
  lines.push("    esac");
  lines.push("    _describe -t options 'option' cands");
  lines.push("    return");
  lines.push("  fi");
  return lines;
}

function zshWords(root: CommandNode): string[] {
  const lines = ['  case "$node" in'];
  for (const n of allNodes(root)) {
    if (!n.children.length) continue;
    const entries = n.children.flatMap((c) => [
      describeEntry(c.name, c.description),
      ...c.aliases.map((a) => describeEntry(a, `alias of ${c.name}`)),
    ]);
    lines.push(`    (${n.id}) ((npos == 0)) || { _default; return }; cands=(${entries.join(" ")}) ;;`);
  }
  for (const n of allNodes(root)) {
    if (n.children.length) continue;
    const source = n.argSource;
    const choices = n.id === "help" ? [...childWords(root), ...root.topics] : n.arguments[0]?.choices;
    if (source) lines.push(`    (${n.id}) ((npos == 0)) && _partner_cli_${source}; return ;;`);
    else if (choices?.length)
      lines.push(`    (${n.id}) ((npos == 0)) && compadd -- ${choices.join(" ")}; return ;;`);
  }
  lines.push("    (*) _default; return ;;");
  lines.push("  esac");
  lines.push("  _describe -t commands 'command' cands");
  return lines;
}

function zshSource(source: ValueSource): string[] {
  return [
    `_partner_cli_${source}() {`,
    "  local -a vals",
    // zsh splits an unquoted parameter only when told to (= flag): "npx --no partner-cli" is three words.
    `  vals=(\${(f)"$(${ask(source, "${=_partner_cli_bin:-partner-cli}")})"})`,
    "  compadd -a vals",
    "}",
  ];
}

function zshScript(root: CommandNode): string {
  const vf = valueFlags(root);
  const pat = (node: string, word: string) => (node === "*" ? `*" ${word}"` : `"${node} ${word}"`);
  const lines: string[] = [];
  lines.push(`#compdef ${BIN}`);
  lines.push(`# zsh completion for ${BIN}, generated from its command tree by "${BIN} completion zsh".`);
  lines.push(`# It completes "${BIN} ..." and, once loaded, "npx ${BIN} ...".`);
  lines.push(`# Load it now:     source <(${BIN} completion zsh)`);
  lines.push(`# Or install it:   ${BIN} completion zsh > "\${fpath[1]}/_${BIN}"`);
  lines.push(...zshSource("profiles"), ...zshSource("campaigns"));
  lines.push("_partner_cli() {");
  lines.push("  local node=root skip=0 npos=0 i w from");
  lines.push(...zshWalk(root, vf, pat), ...zshValues(root, vf, pat), ...zshWords(root));
  lines.push("}");
  lines.push("_partner_cli_npx() {");
  lines.push(`  if ((CURRENT == 2)); then compadd -- ${BIN}; _default; return; fi`);
  lines.push(`  [[ "\${words[2]}" == ${BIN} ]] || { _default; return }`);
  lines.push(`  local _partner_cli_bin="${NPX_RUN}"`);
  lines.push("  shift words");
  lines.push("  ((CURRENT--))");
  lines.push("  _partner_cli");
  lines.push("}");
  lines.push('if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then');
  lines.push("  compdef _partner_cli_npx npx");
  lines.push('  _partner_cli "$@"');
  lines.push("else");
  lines.push(`  compdef _partner_cli ${BIN}`);
  lines.push("  compdef _partner_cli_npx npx");
  lines.push("fi");
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------- fish

/** A fish single-quoted string. */
function fq(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function fishNode(root: CommandNode, vf: ValueFlag[], pat: (n: string, w: string) => string): string[] {
  const lines = [
    "function __partner_cli_node",
    "    set -l tokens (commandline -opc)",
    "    set -e tokens[1]",
  ];
  lines.push(
    "    set -l node root",
    "    set -l skip 0",
    "    set -g __partner_cli_npos 0",
    "    for w in $tokens",
  );
  lines.push("        if test $skip = 1", "            set skip 0", "            continue", "        end");
  if (vf.length) {
    lines.push('        switch "$node $w"');
    lines.push(`            case ${vf.map((v) => pat(v.node, v.flag)).join(" ")}`);
    lines.push("                set skip 1", "                continue", "        end");
  }
  lines.push("        if string match -q -- '-*' $w", "            continue", "        end");
  lines.push("        set -l from $node");
  lines.push('        switch "$node $w"');
  const byTarget = new Map<string, string[]>();
  for (const t of transitions(root)) {
    byTarget.set(t.to, [...(byTarget.get(t.to) ?? []), pat(t.from, t.word)]);
  }
  for (const [to, pats] of byTarget) {
    lines.push(`            case ${pats.join(" ")}`);
    lines.push(`                set node ${to}`);
  }
  lines.push("        end");
  lines.push('        test "$node" = "$from"; and set -g __partner_cli_npos (math $__partner_cli_npos + 1)');
  lines.push("    end", "    echo $node", "end", "");
  return lines;
}

const at = (id: string) => `-n ${fq(`test (__partner_cli_node) = ${id}`)}`;
const firstArgAt = (id: string) =>
  `-n ${fq(`test (__partner_cli_node) = ${id}; and test $__partner_cli_npos = 0`)}`;

function fishOption(o: OptionInfo, cond: string): string {
  const parts = [`complete -c ${BIN}`];
  if (cond) parts.push(cond);
  if (o.long) parts.push(`-l ${o.long.replace(/^--/, "")}`);
  if (o.short && /^-[A-Za-z0-9]$/.test(o.short)) parts.push(`-s ${o.short.slice(1)}`);
  if (o.takesValue) {
    const source = o.profileValue ? "profiles" : o.source;
    if (source) parts.push(`-x -a '(__partner_cli_${source})'`);
    else parts.push(o.choices?.length ? `-x -a ${fq(o.choices.join(" "))}` : "-r");
  }
  parts.push(`-d ${fq(o.description)}`);
  return parts.join(" ");
}

function fishNodes(root: CommandNode): string[] {
  const lines: string[] = [];
  const globalFlags = new Set(root.options.flatMap(flagsOf));
  for (const n of allNodes(root)) {
    if (n.children.length) {
      lines.push(`complete -c ${BIN} ${at(n.id)} -f`);
      for (const c of n.children) {
        lines.push(`complete -c ${BIN} ${at(n.id)} -f -a ${c.name} -d ${fq(c.description)}`);
        for (const a of c.aliases) {
          lines.push(`complete -c ${BIN} ${at(n.id)} -f -a ${a} -d ${fq(`alias of ${c.name}`)}`);
        }
      }
    }
    if (n === root) continue;
    const choices = n.id === "help" ? [...childWords(root), ...root.topics] : n.arguments[0]?.choices;
    if (!n.children.length && n.argSource) {
      lines.push(`complete -c ${BIN} ${firstArgAt(n.id)} -f -a '(__partner_cli_${n.argSource})'`);
    } else if (!n.children.length && choices?.length) {
      lines.push(`complete -c ${BIN} ${firstArgAt(n.id)} -f -a ${fq(choices.join(" "))}`);
    }
    for (const o of n.options) {
      if (flagsOf(o).some((f) => globalFlags.has(f))) continue;
      lines.push(fishOption(o, at(n.id)));
    }
  }
  return lines;
}

/** The values of a source, from the CLI as typed (`npx partner-cli` sets __partner_cli_run). */
function fishSource(source: ValueSource): string[] {
  return [
    `function __partner_cli_${source}`,
    "    set -l run partner-cli",
    "    set -q __partner_cli_run; and set run $__partner_cli_run",
    `    $run __complete -- ${ASK[source]} 2>/dev/null | cut -f1`,
    "end",
    "",
  ];
}

function fishNpx(): string[] {
  return [
    "function __partner_cli_npx_line",
    "    set -l tokens (commandline -opc)",
    `    test (count $tokens) -ge 2; and test "$tokens[2]" = ${BIN}`,
    "end",
    "function __partner_cli_npx",
    "    set -l tokens (commandline -opc)",
    `    set -g __partner_cli_run ${NPX_RUN}`,
    "    complete -C (string join ' ' -- (string escape -- $tokens[2..-1]) (commandline -ct))",
    "    set -e __partner_cli_run",
    "end",
    `complete -c npx -n 'test (count (commandline -opc)) = 1' -f -a ${BIN} -d 'complete ${BIN} through npx'`,
    "complete -c npx -n __partner_cli_npx_line -f -a '(__partner_cli_npx)'",
  ];
}

function fishScript(root: CommandNode): string {
  const vf = valueFlags(root);
  const pat = (node: string, word: string) => fq(node === "*" ? `* ${word}` : `${node} ${word}`);
  const lines: string[] = [];
  lines.push(`# fish completion for ${BIN}, generated from its command tree by "${BIN} completion fish".`);
  lines.push(`# It completes "${BIN} ..." and "npx ${BIN} ..." (for npx, source it from config.fish).`);
  lines.push(`# Load it now:     ${BIN} completion fish | source`);
  lines.push(`# Or install it:   ${BIN} completion fish > ~/.config/fish/completions/${BIN}.fish`);
  lines.push(...fishSource("profiles"), ...fishSource("campaigns"), ...fishNode(root, vf, pat));
  // Global options, anywhere.
  for (const o of root.options) lines.push(fishOption(o, o.long === "--version" ? at("root") : ""));
  lines.push(...fishNodes(root), ...fishNpx());
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, root: CommandNode): string {
  switch (shell) {
    case "bash":
      return bashScript(root);
    case "zsh":
      return zshScript(root);
    case "fish":
      return fishScript(root);
    case "powershell":
      return powershellScript();
  }
}
