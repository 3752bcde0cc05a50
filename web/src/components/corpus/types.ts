/** The corpus API's shapes as the corpus page's components use them. */
import type { GetData } from '../../api';

export type SearchPage = GetData<'/corpus/search'>;
export type BrowsePage = GetData<'/corpus/browse'>;
export type Context = SearchPage['items'][number];
export type AnswerRow = Context['answers'][number];
