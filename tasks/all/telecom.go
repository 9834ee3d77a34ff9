package all

import _ "arew/tasks/telecom"
