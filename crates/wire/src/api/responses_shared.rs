//! Shared conversion for the Responses family (`openai-responses-shared.js`).
