/**
 * What counts as a number in a file's text, written once for the readers. DuckDB's own cast is lenient
 * in ways no load generator writes: `TRY_CAST('1_000' AS DOUBLE)` is 1000 (digit separators),
 * `' 12 '` is 12 and `'+5'` is 5; a JSON reader typed DOUBLE reads `true` as 1 and the string `"143"`
 * as 143. Each of those would be a silent misread (a 1 ms request from `true`), so a value counts as
 * a number only when it is written as one.
 */

/** A number as JSON, Go's strconv and Python write it: optional minus, digits, optional fraction and exponent. */
export const NUMBER_TEXT_PATTERN = '-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?';

/** SQL: the text expression `text` as a DOUBLE when it is written as a plain number (NUMBER_TEXT_PATTERN), else NULL. */
export function strictDoubleSql(text: string): string {
  return `CASE WHEN regexp_full_match(${text}, '${NUMBER_TEXT_PATTERN}') THEN TRY_CAST(${text} AS DOUBLE) END`;
}

/**
 * SQL: a JSON value (an expression of type JSON) as a DOUBLE when it is a JSON number, else NULL (a
 * string, a boolean, null, an array or an object). The JSON text of a number is a plain number.
 */
export function jsonNumberSql(json: string): string {
  return `TRY_CAST((${json})::VARCHAR AS DOUBLE)`;
}

/**
 * SQL: ' (a JSON string)' and the like for a value whose json_type (an expression) is not a number, so
 * a message quoting the value says why it is not one (`found 143 (a JSON string)`); '' otherwise.
 */
export function jsonKindSuffixSql(jsonType: string): string {
  return `CASE ${jsonType} WHEN 'VARCHAR' THEN ' (a JSON string)' WHEN 'BOOLEAN' THEN ' (a JSON boolean)'
    WHEN 'ARRAY' THEN ' (a JSON array)' WHEN 'OBJECT' THEN ' (a JSON object)' ELSE '' END`;
}
