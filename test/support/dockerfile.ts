/** A Dockerfile's instructions, continuation lines joined, comments dropped (enough for our own file). */
export interface DockerfileStep {
  instruction: string;
  arguments: string;
}

export function dockerfileInstructions(text: string): DockerfileStep[] {
  const steps: DockerfileStep[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const whole = `${pending}${line}`.trim();
    pending = '';
    const match = /^(\S+)\s+([\s\S]*)$/.exec(whole);
    if (match) steps.push({ instruction: (match[1] as string).toUpperCase(), arguments: (match[2] as string).trim() });
  }
  return steps;
}

/** The JSON array of an exec-form instruction (`CMD ["node", …]`), after HEALTHCHECK's options. */
export function execForm(argumentsText: string): string[] {
  const start = argumentsText.indexOf('[');
  return JSON.parse(argumentsText.slice(start)) as string[];
}
