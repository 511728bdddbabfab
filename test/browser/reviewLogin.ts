import type { Page } from './chromium.js'

/** Log in on the review page's form as `user`, once the form is there. */
export async function logInOnReviewPage(page: Page, user: { username: string; password: string }): Promise<void> {
  await page.waitFor(`document.querySelector('form.login input[name=username]')`, 'the login form')
  await page.evaluate(`(() => {
    document.querySelector('form.login input[name=username]').value = ${JSON.stringify(user.username)}
    document.querySelector('form.login input[name=password]').value = ${JSON.stringify(user.password)}
    document.querySelector('form.login').requestSubmit()
  })()`)
}
