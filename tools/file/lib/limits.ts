// The bounds of the file tools in one place. A mutable object (not constants) so tests can tighten a
// bound, e.g. the search deadline, without waiting for the real one.

export const FILE_LIMITS = {
  /** Longest path accepted, in UTF-8 bytes (Linux PATH_MAX). */
  maxPathBytes: 4096,
  /** Longest single path component, in UTF-8 bytes (NAME_MAX). */
  maxNameBytes: 255,
  /** Symbolic links followed while resolving one path before giving up (as the kernel's ELOOP). */
  maxSymlinkHops: 40,
  /** Bytes sniffed at the start of a file to tell text from binary. */
  sniffBytes: 8192,

  /** read_file: lines returned when `limit` is absent. */
  readDefaultLines: 2000,
  /** read_file: characters of numbered output per call; the page stops at a whole line before it. */
  readCharBudget: 50_000,
  /** read_file: files up to this size also get their total line count after the page. */
  readCountLinesUpToBytes: 64 * 1024 * 1024,

  /** write_file and patch: largest file content written or edited, in bytes. */
  maxWriteBytes: 10 * 1024 * 1024,

  /** search_files: wall-clock deadline of one search. */
  searchDeadlineMs: 10_000,
  /** search_files: files read (content) or entries visited (names) before stopping. */
  searchMaxFiles: 20_000,
  /** search_files: files larger than this are skipped by a content search. */
  searchMaxFileBytes: 10 * 1024 * 1024,
  /** search_files: a shown line is cut to this many characters. */
  searchMaxLineChars: 500,
  /** search_files: results per page when `limit` is absent, and the most one page may hold. */
  searchDefaultLimit: 50,
  searchMaxLimit: 1000,
  /** search_files: most context lines before and after a match. */
  searchMaxContext: 10,
  /** search_files: characters of formatted output per page; the page ends early past it. */
  searchOutputBudget: 60_000,
  /**
   * search_files: longest glob, and deepest nesting of its groups (`(...)`, `{...}`, `[...]`).
   * picomatch compiles on the calling thread, and deeply nested extglobs take it seconds (1000
   * levels of `*(`: 5 s); at these bounds the worst compile measured stays near 0.1 s.
   */
  maxGlobChars: 1000,
  maxGlobNesting: 8
}
