package all

import _ "arew/tasks/mediq"
