// Naive UI's dark theme (the dark styles of every component): loaded when the dark theme is in
// use, not with the first screen (App.vue).
export { darkTheme } from 'naive-ui';
