/**
 * The CodeMirror 6 body editor, loaded lazily (its own chunk): JSON highlighting when `json`, line
 * numbers off, bracket matching, undo history, and completion of `{{…}}` template tags
 * (template-complete.ts). Tab is left to the page's focus order (no indent-with-tab), so the keyboard
 * never gets trapped; Ctrl-Space opens the completion list.
 */
import {
  autocompletion,
  type CompletionContext,
  type CompletionResult,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  EditorView,
  keymap,
  MatchDecorator,
  placeholder as placeholderExt,
  ViewPlugin,
  type ViewUpdate,
} from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import { completeTemplate, type TemplateHints } from './template-complete';

export interface CodeEditorProps {
  value: string;
  onChange: (v: string) => void;
  json: boolean;
  rows: number;
  labelId: string;
  describedBy?: string;
  invalid: boolean;
  placeholder?: string;
  hints: TemplateHints;
  /** where the template does not parse: underlined from there to the end of its line */
  problem?: { line: number; column: number } | null;
}

/** Colours are CSS variables (styles.css) so the light and dark themes both keep AA contrast. */
const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--code-key)' },
  { tag: tags.string, color: 'var(--code-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--code-literal)' },
  { tag: [tags.brace, tags.squareBracket, tags.separator], color: 'var(--muted)' },
]);

/** `{{…}}` tags get their own colour wherever they stand (in strings, numbers or plain text). */
const tagMatcher = new MatchDecorator({
  regexp: /\{\{[^{}]*\}\}/g,
  decoration: Decoration.mark({ class: 'cm-template-tag' }),
});
const templateTag = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = tagMatcher.createDeco(view);
    }
    update(u: ViewUpdate) {
      this.decorations = tagMatcher.updateDeco(u, this.decorations);
    }
  },
  { decorations: (v) => v.decorations },
);

/** The underline of a template error (templateError's line and column, 1-based). */
function problemMark(doc: EditorState['doc'], p: CodeEditorProps['problem']): DecorationSet {
  if (!p || p.line > doc.lines) return Decoration.none;
  const line = doc.line(p.line);
  const from = Math.min(line.to, line.from + p.column - 1);
  const to = Math.max(from + 1, line.to);
  if (to > doc.length) return Decoration.none;
  return Decoration.set([Decoration.mark({ class: 'cm-template-error' }).range(from, to)]);
}

function templateSource(hints: () => TemplateHints) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const line = ctx.state.doc.lineAt(ctx.pos);
    const before = line.text.slice(0, ctx.pos - line.from);
    const after = line.text.slice(ctx.pos - line.from);
    const found = completeTemplate(before, hints(), ctx.explicit, after);
    if (!found) return null;
    return {
      from: line.from + found.from,
      options: found.options.map((o) => {
        const text = o.apply ?? o.label;
        const back = o.caretBack ?? 0;
        return {
          label: o.label,
          detail: o.detail,
          apply:
            back === 0
              ? text
              : (v: EditorView, _c: unknown, from: number, to: number) =>
                  v.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length - back } }),
        };
      }),
      validFor: /^[\w.$-]*$/,
    };
  };
}

export default function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const language = useRef(new Compartment());
  const attrs = useRef(new Compartment());
  const problem = useRef(new Compartment());

  const contentAttributes = (p: CodeEditorProps) =>
    EditorView.contentAttributes.of({
      'aria-labelledby': p.labelId,
      'aria-invalid': String(p.invalid),
      ...(p.describedBy ? { 'aria-describedby': p.describedBy } : {}),
    });

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; later props flow in below
  useEffect(() => {
    const p = latest.current;
    const v = new EditorView({
      parent: host.current as HTMLDivElement,
      state: EditorState.create({
        doc: p.value,
        extensions: [
          history(),
          closeBrackets(),
          bracketMatching(),
          syntaxHighlighting(highlight),
          templateTag,
          EditorView.lineWrapping,
          placeholderExt(p.placeholder ?? ''),
          language.current.of(p.json ? json() : []),
          attrs.current.of(contentAttributes(p)),
          problem.current.of([]),
          autocompletion({ override: [templateSource(() => latest.current.hints)], icons: false }),
          keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
          EditorView.theme({ '.cm-content, .cm-gutter': { minHeight: `${p.rows * 1.45}em` } }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) latest.current.onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, []);

  // Outside changes (Format, a reset, a duplicate) replace the document; typing does not come back here.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const current = v.state.doc.toString();
    if (current !== props.value) v.dispatch({ changes: { from: 0, to: current.length, insert: props.value } });
  }, [props.value]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: contentAttributes reads only these props
  useEffect(() => {
    view.current?.dispatch({
      effects: [
        language.current.reconfigure(props.json ? json() : []),
        attrs.current.reconfigure(contentAttributes(props)),
      ],
    });
  }, [props.json, props.invalid, props.describedBy, props.labelId]);

  // the underline follows the problem the editor's owner found (after each change of the text)
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const marks = problemMark(v.state.doc, props.problem);
    v.dispatch({ effects: problem.current.reconfigure(EditorView.decorations.of(marks)) });
  }, [props.problem]);

  return <div ref={host} className={`code-editor${props.invalid ? ' invalid' : ''}`} />;
}
