export { RetentionService, RetentionTokenError } from './retention-service.ts';
