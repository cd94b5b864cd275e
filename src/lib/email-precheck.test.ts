import { isAcceptableEmail } from "./email-precheck";

function emailInput(value: string): HTMLInputElement {
  const input = document.createElement("input");
  input.type = "email";
  input.value = value;
  return input;
}

describe("isAcceptableEmail", () => {
  it.each(["", "   ", "creator", "creator.example.com"])("rejects %j (empty or without @)", (value) => {
    expect(isAcceptableEmail(value)).toBe(false);
  });

  it.each(["a@b.co", "ada@example.com", "  ada@example.com  "])("accepts %j", (value) => {
    expect(isAcceptableEmail(value, emailInput(value.trim()))).toBe(true);
  });

  it.each(["a@", "@example.com", "a b@example.com", "a@@example.com"])(
    "rejects %j when the browser's email type does",
    (value) => {
      const input = emailInput(value);
      expect(input.validity.typeMismatch).toBe(true);
      expect(isAcceptableEmail(value, input)).toBe(false);
    },
  );
});
