import { execFile } from 'node:child_process';

// pdf-parse reads with pdf.js, an ES module that jest's module sandbox does not load without
// node's experimental VM modules: the text is read by a node process of its own instead.
const READ_STDIN_PDF = `
const { PDFParse } = require('pdf-parse');
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk)).on('end', async () => {
  const parser = new PDFParse({ data: new Uint8Array(Buffer.concat(chunks)) });
  try {
    process.stdout.write((await parser.getText()).text);
  } finally {
    await parser.destroy();
  }
});`;

/** The text of a PDF document. */
export function pdfText(bytes: ArrayBuffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['-e', READ_STDIN_PDF], { cwd: __dirname, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
    child.stdin?.end(Buffer.from(bytes));
  });
}
