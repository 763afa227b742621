/**
 * The English Snowball stemmer ("Porter2") as PostgreSQL's `english_stem` dictionary applies it to
 * a word of ASCII lower-case letters (stop words aside), so a search's words can be made into the
 * index's lexemes without asking PostgreSQL (D205). PostgreSQL's releases ship different editions
 * of it: which one a server has is read from its answers for `STEM_PROBES` (`editionOf`).
 * `tests/lib/english-stem.test.ts` holds it to PostgreSQL's answers. Written from the algorithm's
 * description (snowballstem.org/algorithms/english/stemmer.html); only `[a-z]` words come here.
 */

/**
 * Snowball 2.1 (PostgreSQL 15's) undoubles a double letter left by "-ed" or "-ing" ("erred" →
 * "er"); 2.2 (PostgreSQL 18's) keeps it after a lone a, e or o ("err").
 */
export type StemmerEdition = '2.1' | '2.2';
const EDITIONS: StemmerEdition[] = ['2.2', '2.1'];

/** PostgreSQL's `english.stop` (the Snowball list): `english_stem` makes no lexeme of these. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now'.split(
    ' ',
  ),
);

const VOWELS = new Set('aeiouy');
/** Whole words the algorithm answers from a table. */
const EXCEPTIONS = new Map([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['howe', 'howe'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
]);
/** Words left as they are once step 1a has run. */
const AFTER_STEP_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);
/** Prefixes whose end is where R1 starts, instead of the usual rule. */
const R1_PREFIXES = ['gener', 'commun', 'arsen'];
const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);
const VALID_LI = new Set('cdeghkmnrt');

const STEP_2: [string, string][] = [
  ['ization', 'ize'],
  ['ational', 'ate'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['tional', 'tion'],
  ['biliti', 'ble'],
  ['lessli', 'less'],
  ['entli', 'ent'],
  ['ation', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['ousli', 'ous'],
  ['iviti', 'ive'],
  ['fulli', 'ful'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['izer', 'ize'],
  ['ator', 'ate'],
  ['alli', 'al'],
  ['bli', 'ble'],
  ['ogi', 'og'],
  ['li', ''],
];
const STEP_3: [string, string][] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ative', ''],
  ['ical', 'ic'],
  ['ness', ''],
  ['ful', ''],
];
/** Longest first, so the first a word ends with is the longest. */
const STEP_4 = ['ement', 'ance', 'ence', 'able', 'ible', 'ment', 'ant', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion', 'al', 'er', 'ic'];

/** The word's stem: words of one or two letters are their own. */
export function englishStem(word: string, edition: StemmerEdition): string {
  const exception = EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;
  if (word.length < 3) return word;
  return new Stemming(word, edition).stem();
}

/** Words through every step's rules, its exceptions and special regions, and where the editions differ. */
export const STEM_PROBES = [
  ...'skis skies dying news inning proceed generously communism arsenal caresses ties cries gas gaps agreed hoped hopping'.split(' '),
  ...'tanned erred added egging ebbed offing seeing cry say happy yelled relational conditional hesitancy digitizer'.split(' '),
  ...'conformably analogi operator feudalism hopefulness callousness formality sensibility fruitfully breathlessly'.split(' '),
  ...'triplicate formative formalize electricity hopeful goodness revival allowance adjustable replacement adoption'.split(' '),
  ...'bowdlerize probate cease controll fluently the only'.split(' '),
];

/** The edition whose stems are the server's answers (`ts_lexize('english_stem', …)` for `STEM_PROBES`); undefined when none is. */
export function editionOf(answers: Map<string, string[]>): StemmerEdition | undefined {
  return EDITIONS.find((edition) =>
    STEM_PROBES.every((word) => {
      const lexemes = answers.get(word);
      return (
        lexemes !== undefined &&
        (ENGLISH_STOP_WORDS.has(word) ? lexemes.length === 0 : lexemes.length === 1 && lexemes[0] === englishStem(word, edition))
      );
    }),
  );
}

/** One word on its way to its stem: `w` is the word so far, `y` a consonant `y` written `Y`. */
class Stemming {
  private w: string;
  private r1 = 0;
  private r2 = 0;

  constructor(
    word: string,
    private readonly edition: StemmerEdition,
  ) {
    this.w = word;
  }

  private isVowel(at: number): boolean {
    return VOWELS.has(this.w[at]!);
  }

  stem(): string {
    this.prelude();
    this.markRegions();
    this.step1a();
    if (!AFTER_STEP_1A.has(this.w)) {
      this.step1b();
      this.step1c();
      this.step2();
      this.step3();
      this.step4();
      this.step5();
    }
    return this.w.replaceAll('Y', 'y');
  }

  /** A `y` at the start or after a vowel is a consonant. */
  private prelude() {
    let out = '';
    for (const c of this.w) out += c === 'y' && (out === '' || VOWELS.has(out.at(-1)!)) ? 'Y' : c;
    this.w = out;
  }

  /** The position after the first non-vowel that follows a vowel, from `from` on (the word's end when none). */
  private afterVowelThenConsonant(from: number): number {
    let i = from;
    while (i < this.w.length && !this.isVowel(i)) i += 1;
    while (i < this.w.length && this.isVowel(i)) i += 1;
    return i < this.w.length ? i + 1 : this.w.length;
  }

  private markRegions() {
    const prefix = R1_PREFIXES.find((p) => this.w.startsWith(p));
    this.r1 = prefix ? prefix.length : this.afterVowelThenConsonant(0);
    this.r2 = this.afterVowelThenConsonant(this.r1);
  }

  /** A short syllable ends at `end` (exclusive). */
  private shortSyllableEndsAt(end: number): boolean {
    const w = this.w;
    if (end === 2) return this.isVowel(0) && !this.isVowel(1);
    if (end < 3) return false;
    return !this.isVowel(end - 3) && this.isVowel(end - 2) && !this.isVowel(end - 1) && !'wxY'.includes(w[end - 1]!);
  }

  private isShortWord(): boolean {
    return this.r1 >= this.w.length && this.shortSyllableEndsAt(this.w.length);
  }

  private hasVowelBefore(end: number): boolean {
    for (let i = 0; i < end; i += 1) if (this.isVowel(i)) return true;
    return false;
  }

  private step1a() {
    const v = this.w;
    if (v.endsWith('sses')) this.w = `${v.slice(0, -4)}ss`;
    else if (v.endsWith('ied') || v.endsWith('ies')) this.w = v.length > 4 ? `${v.slice(0, -3)}i` : `${v.slice(0, -3)}ie`;
    else if (v.endsWith('us') || v.endsWith('ss')) return;
    else if (v.endsWith('s') && this.hasVowelBefore(v.length - 2)) this.w = v.slice(0, -1);
  }

  private step1b() {
    const w = this.w;
    const eed = ['eedly', 'eed'].find((s) => w.endsWith(s));
    const ed = ['ingly', 'edly', 'ing', 'ed'].find((s) => w.endsWith(s));
    // The longest suffix decides: "eed" before "ed", "eedly" before "edly".
    if (eed && (!ed || eed.length >= ed.length)) {
      if (w.length - eed.length >= this.r1) this.w = `${w.slice(0, -eed.length)}ee`;
      return;
    }
    if (!ed) return;
    const stem = w.slice(0, -ed.length);
    if (!this.hasVowelBefore(stem.length)) return;
    this.w = stem;
    if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) this.w = `${stem}e`;
    // A double letter is undoubled ("hopp" → "hop"); since 2.2, not after a lone a, e or o ("err", "add", "ebb").
    else if (DOUBLES.has(stem.slice(-2))) {
      const kept = this.edition === '2.2' && stem.length === 3 && 'aeo'.includes(stem[0]!);
      this.w = kept ? stem : stem.slice(0, -1);
    } else if (this.isShortWord()) this.w = `${stem}e`;
  }

  private step1c() {
    const w = this.w;
    const last = w.length - 1;
    if ((w[last] === 'y' || w[last] === 'Y') && last > 1 && !this.isVowel(last - 1)) this.w = `${w.slice(0, last)}i`;
  }

  /** Replaces the longest of `suffixes` (listed longest first) the word ends with, when it lies in R1 and `allowed`. */
  private replaceInR1(suffixes: [string, string][], allowed: (suffix: string, at: number) => boolean) {
    const found = suffixes.find(([suffix]) => this.w.endsWith(suffix));
    if (!found) return;
    const [suffix, replacement] = found;
    const at = this.w.length - suffix.length;
    if (at >= this.r1 && allowed(suffix, at)) this.w = this.w.slice(0, at) + replacement;
  }

  private step2() {
    this.replaceInR1(STEP_2, (suffix, at) => {
      const before = this.w[at - 1] ?? '';
      return suffix === 'li' ? VALID_LI.has(before) : suffix === 'ogi' ? before === 'l' : true;
    });
  }

  private step3() {
    this.replaceInR1(STEP_3, (suffix, at) => suffix !== 'ative' || at >= this.r2);
  }

  private step4() {
    const w = this.w;
    const suffix = STEP_4.find((s) => w.endsWith(s));
    if (!suffix) return;
    const at = w.length - suffix.length;
    if (at < this.r2) return;
    if (suffix === 'ion' && w[at - 1] !== 's' && w[at - 1] !== 't') return;
    this.w = w.slice(0, at);
  }

  private step5() {
    const w = this.w;
    const at = w.length - 1;
    if (w[at] === 'e') {
      if (at >= this.r2 || (at >= this.r1 && !this.shortSyllableEndsAt(at))) this.w = w.slice(0, at);
    } else if (w[at] === 'l') {
      if (at >= this.r2 && w[at - 1] === 'l') this.w = w.slice(0, at);
    }
  }
}
