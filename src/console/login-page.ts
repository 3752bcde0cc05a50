/**
 * `GET {base_url}/login`: a plain HTML form and a few lines of vanilla JavaScript that post the
 * token to `POST {base_url}/api/auth/login` and go on to `?next=` (only a path under the console)
 * or the console root. The page is static apart from the base path, so its Content-Security-Policy
 * allows exactly its own inline script and style by hash.
 */
import { createHash } from 'node:crypto';

export interface LoginPage {
  html: string;
  contentSecurityPolicy: string;
}

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
form{background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.15);width:20rem}
h1{font-size:1.25rem;margin:0 0 1rem}label{display:block;margin-bottom:.25rem}
input{width:100%;box-sizing:border-box;padding:.5rem;margin-bottom:1rem}
button{width:100%;padding:.5rem}#error{color:#b00020;min-height:1.25rem;margin:.75rem 0 0}`;

/** JSON for a <script> element: `<` escaped so no text can close the element. */
function scriptJson(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function script(base: string, api: string): string {
  return `const BASE=${scriptJson(base)},API=${scriptJson(api)};
const form=document.getElementById('login'),out=document.getElementById('error');
function target(){const next=new URLSearchParams(location.search).get('next')||'';
return next.startsWith(BASE+'/')&&!next.startsWith('//')&&!next.startsWith(BASE+'/login')?next:BASE+'/';}
form.addEventListener('submit',async(event)=>{event.preventDefault();out.textContent='';
try{const res=await fetch(API+'/auth/login',{method:'POST',credentials:'same-origin',
headers:{'content-type':'application/json'},body:JSON.stringify({token:form.elements.token.value})});
if(res.ok){location.href=target();return;}
const body=await res.json().catch(()=>({}));
out.textContent=body.detail||('Login failed (HTTP '+res.status+')');}
catch{out.textContent='The console cannot be reached.';}});`;
}

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export function loginPage(baseUrl: string): LoginPage {
  const js = script(baseUrl, `${baseUrl}/api`);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chorus console login</title>
<style>${STYLE}</style>
</head>
<body>
<form id="login">
<h1>Chorus console</h1>
<label for="token">Console token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required maxlength="512" autofocus>
<button type="submit">Log in</button>
<p id="error" role="alert"></p>
</form>
<script>${js}</script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${hash(js)}`,
    `style-src ${hash(STYLE)}`,
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
