/** esbuild's text loader: a .css import is the stylesheet's text (adopted, never put in a <style>). */
declare module '*.css' {
  const text: string;
  export default text;
}
