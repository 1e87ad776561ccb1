// exceljs's SAX reader (saxes), used by src/csv/workbook.ts; exceljs publishes no types for it.
declare module "exceljs/lib/utils/parse-sax.js" {
  const parseSax: (it: AsyncIterable<unknown>) => AsyncIterable<unknown[]>;
  export default parseSax;
}
